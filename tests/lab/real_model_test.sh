#!/usr/bin/env bash
# real_model_test.sh HEADROOM MAKE_HF_CHECKPOINT PNG_CHECK OUTDIR
# A real checkpoint in the lab's window (issue 16): `headroom --model DIR` on a tiny Llama-style model
# (grouped key/value heads) with its WordPiece vocabulary, on the Rank tab: the screenshot is a
# picture, and the state says what opened, the sentence's tokens, and every head's rank within its
# cap. Then a directory that is not a model: the window still opens, says why, and keeps the lab's model.
set -u
headroom=$1 make=$2 png_check=$3 out=$4
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
require_xvfb
rm -rf "$out" && mkdir -p "$out"
"$make" tiny-llama "$out/llama" || fail "could not write the tiny checkpoint"
echo '{"view": "Lab", "lab": {"tab": "rank", "text": "In the beginning God created the heaven and the earth"}}' > "$out/scene.json"
in_xvfb "$headroom" --model "$out/llama" --scene "$out/scene.json" --screenshot "$out/out.png" --frames 5 \
  --size 1280x800 --state-out "$out/state.json" || fail "headroom exited with $?"
"$png_check" "$out/out.png" 1280 800 || fail "screenshot check failed"
python3 - "$out/state.json" "$out/llama" <<'PY' || fail "state check failed ($out/state.json)"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["real_model"]
assert r["dir"] == sys.argv[2] and r["error"] == "", r
assert r["family"] == "Llama" and r["heads"] == 4 and r["kv_heads"] == 2 and r["causal"], r
assert r["tokens"][:4] == ["[CLS]", "in", "the", "beginning"] and r["tokens"][-1] == "[SEP]", r["tokens"]
n = len(r["tokens"])
assert r["rank_cap"] == min(n, r["d_k"]), (r["rank_cap"], n)
assert len(r["ranks"]) == 2 and all(len(layer) == 4 for layer in r["ranks"]), r["ranks"]
assert all(1 <= x <= r["rank_cap"] for layer in r["ranks"] for x in layer), r["ranks"]
assert s["lab"]["tab"] == "rank", s["lab"]
print("real model:", r["family"], n, "tokens, ranks", r["ranks"])
PY
# Its logits taken apart in the neurons view: the scaled q and k after the rotary encoding, d_k = 4
# products per key, adding up to the logits shown.
echo '{"view": "Lab", "lab": {"map_view": "neurons", "neuron_head": 3, "text": "In the beginning God created"}}' \
  > "$out/neurons.json"
in_xvfb "$headroom" --model "$out/llama" --scene "$out/neurons.json" --frames 5 --size 1280x800 \
  --state-out "$out/neurons_state.json" || fail "headroom exited with $? in the neurons view"
v='j["neurons_view"]'
state_equals neurons "$out/neurons_state.json" "($v['head'], $v['r'], $v['keys'] == $v['query'] + 1, $v['sum_error'] < 1e-4)" \
  "(3, 4, True, True)"
mkdir -p "$out/not_a_model"
in_xvfb "$headroom" --model "$out/not_a_model" --screenshot "$out/bad.png" --frames 5 --size 1280x800 \
  --state-out "$out/bad.json" || fail "headroom exited with $? on a directory that is not a model"
python3 - "$out/bad.json" "$out/not_a_model" <<'PY' || fail "bad-directory state check failed ($out/bad.json)"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["real_model"]
assert r["dir"] == "" and sys.argv[2] in r["error"], r
assert s["lab_snapshot"]["layers"] >= 1, s  # the lab's own model is still shown
print("explained:", r["error"])
PY
echo "PASS"
