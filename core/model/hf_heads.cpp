#include "core/model/hf_heads.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/head_analysis.h"
#include "core/attention/attention_spec.h"
#include "core/model/hf_model.h"

namespace headroom::core {
namespace {

constexpr size_t kTopSingularValues = 8;

// The equivalent multi-head attention: grouped key/value heads do not change a head's rank cap.
auto attention_spec_of(const hf::HfConfig& c) {
  AttentionRequest r{AttentionKind::MultiHead, static_cast<int>(c.hidden_size), static_cast<int>(c.num_heads)};
  r.d_k = r.d_v = static_cast<int>(c.head_dim);
  r.causal = c.causal();
  return make_attention_spec(r, nullptr);
}

}  // namespace

ModelSpec model_spec_of(const hf::HfConfig& c) {
  ModelSpec m;
  m.vocab = static_cast<int>(c.vocab_size);
  m.width = static_cast<int>(c.hidden_size);
  m.depth = static_cast<int>(c.num_layers);
  m.context = static_cast<int>(c.max_positions);
  m.mlp_ratio = std::max(1, static_cast<int>(std::lround(double(c.intermediate_size) / double(c.hidden_size))));
  if (auto spec = attention_spec_of(c)) m.attention = *spec;
  return m;
}

std::vector<Bottleneck> model_shape_bottlenecks(const HfModel& model, int n) {
  const auto spec = attention_spec_of(model.config());
  return spec ? attention_bottlenecks(*spec, n) : std::vector<Bottleneck>{};
}

std::vector<std::string> head_analysis_notes(const HfModel& model) {
  const hf::HfConfig& c = model.config();
  std::vector<std::string> notes;
  const std::string d_k = std::to_string(c.head_dim);
  if (c.family == hf::HfFamily::Llama)
    notes.push_back(
        "rotary heads (RoPE): each head's logits on this text are an n x d_k by d_k x n product, so rank <= d_k = " +
        d_k +
        " holds as for the other families; but RoPE rotates q and k by their positions, so the logits are not a fixed "
        "bilinear form x_i^T M x_j of the inputs. LRB Thm 1's construction (choose W_q W_k^T for given inputs) does "
        "not carry over as stated, and the ranks here describe this text, not every input");
  if (c.family == hf::HfFamily::Llama && c.num_kv_heads < c.num_heads)
    notes.push_back("grouped-query attention: " + std::to_string(c.num_heads) + " query heads share " +
                    std::to_string(c.num_kv_heads) +
                    " key/value heads; heads of a group read the same keys, so their logit factors share B");
  if (c.family == hf::HfFamily::Gpt2 || c.family == hf::HfFamily::Bert)
    notes.push_back("q and k carry their projections' biases; the cap d_k holds with them inside the factors");
  return notes;
}

HfHeadReport analyze_heads(const HfModel& model, const HfTrace& trace) {
  const hf::HfConfig& c = model.config();
  HfHeadReport r;
  r.family = hf::family_name(c.family);
  r.model_type = c.model_type;
  r.d_model = static_cast<int>(c.hidden_size);
  r.heads = static_cast<int>(c.num_heads);
  r.kv_heads = static_cast<int>(c.num_kv_heads);
  r.d_k = static_cast<int>(c.head_dim);
  r.layers = static_cast<int>(c.num_layers);
  r.causal = c.causal();
  r.rotary = c.rotary();
  r.n = trace.attention.empty() ? 0 : static_cast<int>(trace.attention[0].J.size(-1));
  r.threshold = r.causal ? r.n / 2 : r.n - 1;
  const int cap = std::min(r.n, r.d_k);
  for (size_t l = 0; l < trace.factors.size(); ++l) {
    HfLayerStats layer;
    layer.layer = static_cast<int>(l);
    layer.input_rank = tensor_spectrum(trace.attention_in[l][0]).rank;
    const auto spectra = factored_spectra(trace.factors[l].A, trace.factors[l].B);
    const torch::Tensor W = trace.attention[l].W[0].to(torch::kFloat).contiguous();  // [heads, n, n]
    for (size_t h = 0; h < spectra.size(); ++h) {
      HfHeadStats s;
      s.head = static_cast<int>(h);
      s.kv_group = static_cast<int>(model.kv_group(static_cast<int64_t>(h)));
      s.rank = spectra[h].rank;
      s.cap = cap;
      s.deficit = r.n - s.rank;
      const auto& sv = spectra[h].singular_values;
      s.top_singular_values.assign(sv.begin(), sv.begin() + static_cast<long>(std::min(kTopSingularValues, sv.size())));
      if (static_cast<int64_t>(h) < W.size(0))
        s.role = head_role(W[static_cast<int64_t>(h)].data_ptr<float>(), r.n, r.causal);
      ++layer.rank_histogram[s.rank];
      layer.heads.push_back(std::move(s));
    }
    r.layers_stats.push_back(std::move(layer));
  }
  r.bottlenecks = model_shape_bottlenecks(model, r.n);
  r.notes = head_analysis_notes(model);
  return r;
}

}  // namespace headroom::core
