// `headroom-worker inspect --model DIR`: a real GPT-2, BERT or Llama-style checkpoint (issue 16) run
// on one text, and every head's logit rank against its cap, as text or one JSON object (what a
// script or a notebook reads); --dump writes one layer's trace as safetensors.
#include <torch/torch.h>

#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/worker/cmd_inspect_model.h"
#include "app/worker/worker_common.h"
#include "app/worker/worker_cli.h"
#include "core/hf/hf_config.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_bridge.h"
#include "core/model/hf_heads.h"
#include "core/model/hf_model.h"
#include "core/text/load_tokenizer.h"

namespace headroom::worker {
namespace {

using nlohmann::ordered_json;

// "3,1,4" -> ids; std::invalid_argument naming the bad entry.
std::vector<int64_t> parse_ids(const std::string& text) {
  std::vector<int64_t> ids;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 0)
      throw std::invalid_argument("--ids: \"" + item + "\" is not a token id (give non-negative integers, 3,1,4)");
    ids.push_back(v);
  }
  if (ids.empty()) throw std::invalid_argument("--ids: no ids given");
  return ids;
}

struct Tokens {
  std::vector<int64_t> ids;
  std::vector<std::string> labels;  // the vocabulary's spelling, or the id when there is no tokenizer
};

Tokens tokens_of(const InspectModelOptions& o) {
  Tokens t;
  if (!o.ids.empty()) {
    t.ids = parse_ids(o.ids);
    std::unique_ptr<core::text::TextTokenizer> tok;
    try {
      tok = core::text::load_tokenizer_dir(o.model);
    } catch (const std::exception&) {}  // labels are a courtesy with --ids: without a tokenizer they are the ids
    for (int64_t id : t.ids) t.labels.push_back(tok ? tok->id_to_token(static_cast<int32_t>(id)) : std::to_string(id));
    return t;
  }
  const auto tok = core::text::load_tokenizer_dir(o.model);  // std::runtime_error naming the file
  for (int32_t id : tok->encode(o.text, !o.no_special_tokens)) {
    t.ids.push_back(id);
    t.labels.push_back(tok->id_to_token(id));
  }
  if (t.ids.empty()) throw std::invalid_argument("--text: the text gives no tokens; give some words");
  return t;
}

void write_dump(const core::HfTrace& trace, const torch::Tensor& output, int layer, const Tokens& tokens,
                const core::HfHeadReport& report, const std::string& path) {
  const auto& a = trace.attention[static_cast<size_t>(layer)];
  auto nmh = [](const torch::Tensor& t) { return t[0].permute({1, 2, 0}).contiguous(); };  // TH's [n, m, heads]
  core::StFile file;
  file.tensors.push_back(core::to_st_tensor("X", trace.attention_in[static_cast<size_t>(layer)][0]));
  file.tensors.push_back(core::to_st_tensor("J", nmh(a.J)));
  file.tensors.push_back(core::to_st_tensor("W", nmh(a.W)));
  file.tensors.push_back(core::to_st_tensor("output", output[0]));
  const auto& f = trace.factors[static_cast<size_t>(layer)];  // J[:, :, h] = A[h] B[h]^T
  file.tensors.push_back(core::to_st_tensor("A", f.A.contiguous()));
  file.tensors.push_back(core::to_st_tensor("B", f.B.contiguous()));
  file.metadata = {
      {"format", "headroom model layer dump v1"},
      {"layer", std::to_string(layer)},
      {"family", report.family},
      {"tokens", nlohmann::json(tokens.labels).dump()},
      {"ids", nlohmann::json(tokens.ids).dump()},
      {"note",
       "X is the attention's input (after the pre-norm for GPT-2 and Llama), [n, d]; J the scaled logits "
       "before the mask (after RoPE), W the weights after mask and softmax, both [n, m, heads]; output "
       "the model's logits [n, V] (BERT: its last hidden state [n, d]); A and B [heads, n, d_k] factor J: J[:, :, h] = "
       "A[h] B[h]^T (the scaled q and the k)"}};
  core::write_safetensors_file(path, file);
}

ordered_json to_json(const core::HfHeadReport& r, const Tokens& tokens, const core::HfModel& model,
                     const std::string& dir) {
  ordered_json out;
  out["model"] = dir;
  out["family"] = r.family;
  out["model_type"] = r.model_type;
  out["parameters"] = model.num_parameters();
  out["layers"] = r.layers;
  out["d_model"] = r.d_model;
  out["heads"] = r.heads;
  out["kv_heads"] = r.kv_heads;
  out["d_k"] = r.d_k;
  out["causal"] = r.causal;
  out["rotary"] = r.rotary;
  out["n"] = r.n;
  out["threshold"] = r.threshold;
  out["tokens"] = tokens.labels;
  out["ids"] = tokens.ids;
  ordered_json layers = ordered_json::array();
  for (const auto& l : r.layers_stats) {
    ordered_json heads = ordered_json::array();
    for (const auto& h : l.heads)
      heads.push_back({{"head", h.head},
                       {"kv_group", h.kv_group},
                       {"rank", h.rank},
                       {"cap", h.cap},
                       {"deficit", h.deficit},
                       {"top_singular_values", h.top_singular_values},
                       {"role", core::role_label(h.role)},
                       {"mean_weights",
                        {{"previous", h.role.previous},
                         {"self", h.role.self},
                         {"next", h.role.next},
                         {"first", h.role.first},
                         {"entropy", h.role.entropy}}}});
    ordered_json histogram = ordered_json::object();
    for (const auto& [rank, count] : l.rank_histogram) histogram[std::to_string(rank)] = count;
    layers.push_back(
        {{"layer", l.layer}, {"input_rank", l.input_rank}, {"rank_histogram", histogram}, {"heads", heads}});
  }
  out["per_layer"] = layers;
  out["bottlenecks"] = ordered_json::array();
  for (const auto& b : r.bottlenecks)
    out["bottlenecks"].push_back({{"id", b.id}, {"paper", b.paper}, {"section", b.section}, {"message", b.message}});
  out["notes"] = r.notes;
  out["warnings"] = model.warnings();
  return out;
}

void print_text(const core::HfHeadReport& r, const Tokens& tokens, const core::HfModel& model) {
  std::cout << r.family << " (" << r.model_type << "), " << model.num_parameters() << " parameters: " << r.layers
            << " layers, d = " << r.d_model << ", " << r.heads << " heads";
  if (r.kv_heads != r.heads) std::cout << " (" << r.kv_heads << " key/value heads)";
  std::cout << ", d_k = " << r.d_k << (r.causal ? ", causal" : ", bidirectional") << "\n  " << r.n << " tokens:";
  for (const auto& t : tokens.labels) std::cout << " " << t;
  const int cap = std::min(r.n, r.d_k);
  std::cout << "\n  each head's logit rank (cap min(n, d_k) = " << cap << "; patterns need "
            << (r.causal ? "floor(n/2) = " : "n - 1 = ") << r.threshold << "):\n";
  for (const auto& l : r.layers_stats) {
    std::cout << "  layer " << l.layer << ":";
    for (const auto& h : l.heads) std::cout << " " << h.rank;
    std::cout << "   (input rank " << l.input_rank << ")\n";
  }
  // What heads do on this input (core::head_role), grouped by role.
  std::cout << "  what heads do (an offset or the first token with >= half the weight over queries 2..n-"
            << (r.causal ? 1 : 2) << ", or broad):\n";
  for (const auto& l : r.layers_stats) {
    std::vector<core::HeadRole> roles;
    for (const auto& h : l.heads) roles.push_back(h.role);
    const std::string line = core::describe_roles(roles);
    std::cout << "  layer " << l.layer << ": " << (line.empty() ? "no head does one thing" : line) << "\n";
  }
  if (r.bottlenecks.empty()) std::cout << "  bottlenecks: none at this n\n";
  for (const auto& b : r.bottlenecks) std::cout << "  [" << b.paper << " " << b.section << "] " << b.message << "\n";
  for (const auto& note : r.notes) std::cout << "  note: " << note << "\n";
  for (const auto& w : model.warnings()) std::cerr << "headroom-worker inspect: warning: " << w << "\n";
}

}  // namespace

int run_inspect_model(const InspectModelOptions& o) {
  const char* me = "headroom-worker inspect: ";
  if (o.text.empty() == o.ids.empty()) {
    std::cerr << me << "--model needs the input: --text \"...\" (through the model's tokenizer) or --ids 3,1,4\n";
    return kExitBadInput;
  }
  if (!o.dump.empty() && !output_file_ok(o.dump, "inspect", "--dump")) return kExitBadInput;
  try {
    torch::NoGradGuard no_grad;
    const core::HfModel model = core::load_hf_model(o.model);
    const Tokens tokens = tokens_of(o);
    const auto ids = torch::tensor(tokens.ids, torch::kLong).unsqueeze(0);
    core::HfTrace trace;
    // The dump carries the model's output too (what scripts/hf_peer_check.py compares with
    // transformers); the report alone needs no V-wide head.
    const torch::Tensor output = o.dump.empty() ? model.hidden_states(ids, &trace) : model.forward(ids, &trace);
    const core::HfHeadReport report = core::analyze_heads(model, trace);
    if (!o.dump.empty()) {
      if (o.layer < 0 || o.layer >= report.layers)
        throw std::invalid_argument("--layer " + std::to_string(o.layer) + ": the model has layers 0.." +
                                    std::to_string(report.layers - 1));
      write_dump(trace, output, o.layer, tokens, report, o.dump);
    }
    if (o.json) std::cout << to_json(report, tokens, model, o.model).dump(2) << "\n";
    else print_text(report, tokens, model);
    if (!o.dump.empty() && !o.json) std::cout << "  wrote layer " << o.layer << " to " << o.dump << "\n";
    return kExitOk;
  } catch (const std::exception& e) {  // HfError, tokenizer files, lengths and ids: the input is wrong
    std::cerr << me << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace headroom::worker
