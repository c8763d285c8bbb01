// `headroom-worker inspect`: one attention layer's costs and bottlenecks, and optionally a dump
// of one forward pass with every parameter under TH's names.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/worker/cmd_inspect_model.h"
#include "app/worker/worker_cli.h"
#include "app/worker/worker_common.h"
#include "core/analysis/bottleneck_report.h"
#include "core/analysis/head_analysis.h"
#include "core/attention/attention_costs.h"
#include "core/attention/attention_layer.h"
#include "core/io/spec_json.h"
#include "core/io/tensor_bridge.h"

namespace headroom::worker {
namespace {

using namespace headroom::core;

// A dump materialises W[n,m,h] and friends; refuse sizes that would only exhaust memory.
constexpr int64_t kMaxDumpElements = int64_t(1) << 28;

struct InspectOptions {
  std::string kind;
  // kNotGiven until the flag is given: 0 or -2 given is a layer to refuse by name, not a missing flag.
  static constexpr int kNotGiven = std::numeric_limits<int>::min();
  int d_model = kNotGiven, heads = kNotGiven;
  std::optional<int> heads_k, heads_v, d_k, d_v;
  int n = 512;
  std::optional<int> m;
  uint64_t seed = 0;
  bool causal = false, json = false;
  std::string dump, dynamic;
  std::string device = "cpu";      // where the --dump forward pass runs
  InspectModelOptions model;       // --model DIR: a real checkpoint instead of one layer's spec
  std::vector<std::string> given;  // the options on the command line, by long name
};

const std::map<std::string, std::string> kFlagOfField = {
    {"d_model", "--d-model"}, {"heads", "--heads"}, {"heads_k", "--heads-k"},      {"heads_v", "--heads-v"},
    {"d_k", "--dk"},          {"d_v", "--dv"},      {"dynamic_terms", "--dynamic"}};

std::string flag_of(const std::string& field) {
  auto it = kFlagOfField.find(field);
  return it == kFlagOfField.end() ? field : it->second;
}

std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The layer and X are drawn on the CPU from the seed (the same numbers whatever the device), then
// the traced forward pass runs on `device`; everything is written from the CPU.
void write_dump(const AttentionSpec& spec, int n, uint64_t seed, const std::string& path, const std::string& device) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed);
  AttentionLayer layer(spec);
  const auto x = torch::randn({1, n, spec.d_model});
  const torch::Device on(device);
  layer->to(on);
  AttentionTrace trace;
  const auto y = layer->forward(x.to(on), &trace).cpu();

  StFile file;
  file.tensors.push_back(to_st_tensor("X", x[0]));
  for (const auto& [name, value] : layer->th_parameters()) file.tensors.push_back(to_st_tensor(name, value.cpu()));
  // Traces are [B, heads, n, m]; TH writes them [n, m, heads].
  auto nmh = [](const torch::Tensor& t) { return t[0].permute({1, 2, 0}).contiguous().cpu(); };
  file.tensors.push_back(to_st_tensor("W", nmh(trace.W)));
  file.tensors.push_back(to_st_tensor("J", nmh(trace.J)));
  file.tensors.push_back(to_st_tensor("L", nmh(trace.L)));
  file.tensors.push_back(to_st_tensor("U", nmh(trace.U)));
  file.tensors.push_back(to_st_tensor("Y", y[0]));
  // Every head's logits as factors, L[:, :, h] = A[h] B[h]^T (what the lab's neurons view draws),
  // from the weights on the CPU.
  layer->to(torch::kCPU);
  const auto factors = logit_factors(*layer, x[0]);
  file.tensors.push_back(to_st_tensor("A", factors.A.contiguous()));
  file.tensors.push_back(to_st_tensor("B", factors.B.contiguous()));
  file.metadata = {
      {"format", "headroom attention dump v1"},
      {"spec", to_json(spec).dump()},
      {"seed", std::to_string(seed)},
      {"device", device},
      {"logit_scale", fmt_g(logit_scale(spec))},
      {"logit_scale_note",
       "J = logit_scale * einsum(Q, K): Headroom multiplies the raw dot products by logit_scale (1/sqrt(d_k); 1 for "
       "general-bilinear) instead of folding it into P_q as TH does. Self-attention: M = X. W, J, L, U are [n, m, "
       "heads]; "
       "L is J after P_l, before the causal mask; W is the softmax of the masked L; U is W after P_w. A and B "
       "[heads, n, r] factor L: L[:, :, h] = A[h] B[h]^T, r = d_k (h_k d_k for mixed logits, 2 h_k d_k with the Ml "
       "term, d for general-bilinear)."},
  };
  write_safetensors_file(path, file);
}

int run_inspect(const InspectOptions& o) {
  // A layer's flags with --model, or --model's without it, would be ignored: refused instead.
  const std::vector<std::string> layer_only = {"--attention", "--d-model", "--heads", "--heads-k", "--heads-v",
                                               "--dk",        "--dv",      "--n",     "--m",       "--seed",
                                               "--dynamic",   "--causal",  "--device"};
  if (!o.model.model.empty() &&
      refuse_given(o.given, layer_only, "inspect",
                   "describes a layer drawn at random; --model DIR reads its layers, sizes and mask from the model's "
                   "config.json: drop one of them"))
    return kExitBadInput;
  if (o.model.model.empty() &&
      refuse_given(o.given, {"--text", "--ids", "--no-special-tokens", "--layer"}, "inspect",
                   "reads a real model: give --model DIR with it, or drop it to inspect a layer drawn at random"))
    return kExitBadInput;
  if (!o.model.model.empty()) {
    InspectModelOptions m = o.model;
    m.json = o.json;
    m.dump = o.dump;
    return run_inspect_model(m);
  }
  if (o.kind.empty() || o.d_model == InspectOptions::kNotGiven || o.heads == InspectOptions::kNotGiven) {
    std::cerr << "headroom-worker inspect: give a layer (--attention KIND --d-model D --heads H) or a model "
                 "(--model DIR --text \"...\")\n";
    return kExitBadInput;
  }
  auto kind = parse_attention_kind(o.kind);
  if (!kind) {
    std::cerr << "headroom-worker inspect: --attention: unknown kind '" << o.kind << "'; use one of "
              << attention_kind_names() << "\n";
    return kExitBadInput;
  }
  AttentionRequest req;
  req.kind = *kind;
  req.d_model = o.d_model;
  req.heads = o.heads;
  req.heads_k = o.heads_k;
  req.heads_v = o.heads_v;
  req.d_k = o.d_k;
  req.d_v = o.d_v;
  req.causal = o.causal;
  if (!o.dynamic.empty()) {
    if (*kind != AttentionKind::DynamicProj) {
      std::cerr << "headroom-worker inspect: --dynamic only applies to --attention dynamic-proj\n";
      return kExitBadInput;
    }
    try {
      req.dynamic_terms = parse_dynamic_terms(o.dynamic);
    } catch (const std::exception& e) {
      std::cerr << "headroom-worker inspect: --dynamic: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  std::vector<SpecProblem> problems;
  auto spec = make_attention_spec(req, &problems);
  if (!spec) {
    for (const auto& p : problems)
      std::cerr << "headroom-worker inspect: " << flag_of(p.field) << ": " << p.message << "\n";
    return kExitBadInput;
  }
  const int m = o.m.value_or(o.n);
  if (o.n < 1 || m < 1) {
    std::cerr << "headroom-worker inspect: " << (o.n < 1 ? "--n" : "--m") << ": sequence lengths must be at least 1\n";
    return kExitBadInput;
  }
  if (!o.dump.empty()) {
    if (m != o.n) {
      std::cerr << "headroom-worker inspect: --dump runs self-attention (M = X), so --m must equal --n (" << o.n
                << "), not " << m << "\n";
      return kExitBadInput;
    }
    const int64_t elems =
        int64_t(o.n) * o.n * std::max({spec->heads, spec->heads_k, spec->heads_v}) * 4 +
        (spec->kind == AttentionKind::GeneralBilinear ? int64_t(2) * spec->d_model * spec->d_model * spec->heads : 0);
    if (elems > kMaxDumpElements) {
      std::cerr << "headroom-worker inspect: --dump at n = " << o.n << " would write ~" << elems * 4 / (1 << 20)
                << " MiB of attention maps; use a smaller --n (the costs need no dump)\n";
      return kExitBadInput;
    }
  }

  std::optional<std::string> device;
  if (!o.dump.empty() && !output_file_ok(o.dump, "inspect", "--dump")) return kExitBadInput;
  if (!o.dump.empty() && !(device = resolve_device_flag(o.device, "inspect"))) return kExitBadInput;

  const auto costs = attention_costs(*spec, o.n, m);
  const auto bottlenecks = attention_bottlenecks(*spec, o.n);
  if (!o.dump.empty()) write_dump(*spec, o.n, o.seed, o.dump, *device);

  nlohmann::ordered_json out;
  out["attention"] = to_string(spec->kind);
  out["d_model"] = spec->d_model;
  out["heads_k"] = spec->heads_k;
  out["heads"] = spec->heads;
  out["heads_v"] = spec->heads_v;
  out["d_k"] = spec->d_k;
  out["d_v"] = spec->d_v;
  out["causal"] = spec->causal;
  if (spec->kind == AttentionKind::DynamicProj) out["dynamic"] = dynamic_terms_to_string(spec->dynamic_terms);
  out["n"] = o.n;
  out["m"] = m;
  out["params_per_attention_layer"] = costs.params;
  out["multiplies_per_attention_layer"] = costs.multiplies;
  out["multiplies_breakdown"] = {{"projections", costs.mult_projections},
                                 {"attention", costs.mult_attention},
                                 {"talking_heads", costs.mult_talking},
                                 {"dynamic", costs.mult_dynamic}};
  out["logit_scale"] = logit_scale(*spec);
  out["logit_rank_cap"] = logit_rank_cap(*spec, o.n, m);
  out["bottlenecks"] = nlohmann::ordered_json::array();
  for (const auto& b : bottlenecks)
    out["bottlenecks"].push_back({{"id", b.id}, {"paper", b.paper}, {"section", b.section}, {"message", b.message}});
  if (!o.dump.empty()) out["dump"] = o.dump;

  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << describe(*spec) << "  (n = " << o.n << ", m = " << m << ")\n"
            << "  parameters per layer:  " << costs.params << "\n"
            << "  multiplies per layer:  " << costs.multiplies << "  (projections " << costs.mult_projections
            << ", attention " << costs.mult_attention << ", talking-heads " << costs.mult_talking << ", dynamic "
            << costs.mult_dynamic << ")\n"
            << "  logit scale:           " << logit_scale(*spec) << "\n"
            << "  logit rank cap:        " << logit_rank_cap(*spec, o.n, m) << "\n";
  if (bottlenecks.empty()) std::cout << "  bottlenecks:           none at this n\n";
  for (const auto& b : bottlenecks) std::cout << "  [" << b.paper << " " << b.section << "] " << b.message << "\n";
  if (!o.dump.empty()) std::cout << "  wrote " << o.dump << "\n";
  return kExitOk;
}

}  // namespace

Command register_inspect(CLI::App& root) {
  auto o = std::make_shared<InspectOptions>();
  auto* app =
      root.add_subcommand("inspect",
                          "Costs, bottlenecks and (with --dump) one forward pass of an attention layer; or a real "
                          "model's heads on a text (--model)");
  app->add_option("--attention", o->kind, "Attention kind: " + attention_kind_names());
  app->add_option("--d-model", o->d_model, "Model width d (d_X = d_M = d_Y)");
  app->add_option("--heads", o->heads, "Heads h (softmax heads for talking-heads kinds)");
  app->add_option("--model", o->model.model,
                  "A Hugging Face GPT-2, BERT or Llama-style model directory (config.json + *.safetensors)");
  app->add_option("--text", o->model.text, "--model: the text, through the model's own tokenizer");
  app->add_option("--ids", o->model.ids, "--model: token ids instead of a text, e.g. 3,1,4");
  app->add_flag("--no-special-tokens", o->model.no_special_tokens,
                "--model: leave out what the tokenizer adds ([CLS] ... [SEP], a BOS)");
  app->add_option("--layer", o->model.layer, "--model --dump: the layer to write (default 0)");
  app->add_option("--heads-k", o->heads_k, "Query/key heads h_k (talking-heads kinds; default h)");
  app->add_option("--heads-v", o->heads_v, "Value heads h_v (talking-heads kinds; default h)");
  app->add_option("--dk", o->d_k, "Query/key size per head (default d_model/heads)");
  app->add_option("--dv", o->d_v, "Value size per head (default d_model/heads)");
  app->add_option("--n", o->n, "Query length n (default 512, as in TH's tables)");
  app->add_option("--m", o->m, "Memory length m (default n)");
  app->add_option("--seed", o->seed, "Seed for the --dump forward pass (default 0)");
  app->add_option("--dynamic", o->dynamic, "dynamic-proj only: which projections, e.g. Xl,Mw (default all four)");
  app->add_flag("--causal", o->causal, "Causal mask (a query sees only earlier keys)");
  app->add_option("--dump", o->dump,
                  "Write X, TH-named parameters, W, J, L, U, Y and the logit factors A, B as safetensors");
  add_device_option(app, &o->device,
                    "--dump: run the forward pass on cpu (default), cuda, cuda:N or auto; the layer and X are drawn "
                    "on the CPU from --seed either way");
  app->add_flag("--json", o->json, "Print one JSON object");
  return {app, [o, app] {
            o->given = given_options(*app);
            return run_inspect(*o);
          }};
}

}  // namespace headroom::worker
