#include "widgets/demo_data.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace headroom::widgets {
namespace {

// Genesis 1:1-4 (KJV), split into words and punctuation.
const char* const kSentence =
    "In the beginning God created the heaven and the earth . And the earth was without form , "
    "and void ; and darkness was upon the face of the deep . And the Spirit of God moved upon "
    "the face of the waters . And God said , Let there be light : and there was light . And God "
    "saw the light , that it was good : and God divided the light from the darkness .";

const char* const kPatternNames[] = {"previous",    "self",      "first token", "uniform", "local", "same word",
                                     "punctuation", "induction", "two back",    "'God'",   "peaky", "recency",
                                     "sink+prev",   "sentence",  "next word",   "dense"};

bool is_punct(const std::string& t) { return t == "." || t == "," || t == ";" || t == ":"; }

void softmax_causal(std::vector<float>& logits, int n) {
  for (int q = 0; q < n; ++q) {
    float* row = &logits[static_cast<size_t>(q) * n];
    float mx = -1e30f;
    for (int k = 0; k <= q; ++k) mx = std::max(mx, row[k]);
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      row[k] = k <= q ? std::exp(row[k] - mx) : 0.0f;
      sum += row[k];
    }
    for (int k = 0; k < n; ++k) row[k] /= sum;
  }
}

// Attention logits for head pattern p at (query q, key k); k <= q.
float pattern_logit(int p, int q, int k, const std::vector<std::string>& tok, float noise) {
  const float sharp = 6.0f;
  switch (p % 16) {
    case 0: return k == q - 1 || (q == 0 && k == 0) ? sharp : 0.0f;
    case 1: return k == q ? sharp : 0.0f;
    case 2: return k == 0 ? sharp : 0.0f;
    case 3: return 0.0f;
    case 4: return -0.5f * static_cast<float>((q - k) * (q - k)) / 4.0f;
    case 5: return tok[k] == tok[q] && k != q ? sharp : (k == q ? 1.0f : 0.0f);
    case 6: return is_punct(tok[k]) ? 3.0f + 0.05f * k : 0.0f;
    case 7: return k > 0 && tok[k - 1] == tok[q] && k - 1 != q ? sharp : (k == 0 ? 2.0f : 0.0f);
    case 8: return k == q - 2 || (q < 2 && k == 0) ? sharp : 0.0f;
    case 9: return tok[k] == "God" ? 4.0f : (k == 0 ? 1.5f : 0.0f);
    case 10: return noise * 3.0f;
    case 11: return -0.25f * static_cast<float>(q - k);
    case 12: return k == 0 ? 3.0f : (k == q - 1 ? 3.5f : 0.0f);
    case 13: {
      // Attend within the current sentence (sentences end at '.').
      int start = q;
      while (start > 0 && tok[start - 1] != ".") --start;
      return k >= start ? 2.0f : -2.0f;
    }
    case 14: return k == q ? 2.0f : (k == q - 1 ? 1.0f : 0.0f) + noise;
    default: return noise * 1.2f;
  }
}

}  // namespace

DemoData make_demo_data(int tokens, int heads, int points, uint32_t seed) {
  DemoData d;
  std::istringstream words(kSentence);
  for (std::string w; words >> w && static_cast<int>(d.token_text.size()) < std::clamp(tokens, 1, 64);)
    d.token_text.push_back(w);
  d.tokens = static_cast<int>(d.token_text.size());
  for (const std::string& t : d.token_text) d.token_labels.push_back(t.c_str());

  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  const int n = d.tokens;
  d.heads = std::max(1, heads);
  d.head_maps.resize(d.heads);
  for (int h = 0; h < d.heads; ++h) {
    std::vector<float>& m = d.head_maps[h];
    m.assign(static_cast<size_t>(n) * n, 0.0f);
    for (int q = 0; q < n; ++q)
      for (int k = 0; k <= q; ++k) m[static_cast<size_t>(q) * n + k] = pattern_logit(h, q, k, d.token_text, gauss(rng));
    softmax_causal(m, n);
    d.head_ptrs.push_back(m.data());
    d.head_names.push_back("h" + std::to_string(h) + " " + kPatternNames[h % 16]);
    d.head_short.push_back("h" + std::to_string(h));
  }
  for (const std::string& s : d.head_names) d.head_titles.push_back(s.c_str());
  for (const std::string& s : d.head_short) d.head_labels.push_back(s.c_str());

  // Talking-heads mixing: mostly identity, a few strong couplings of both signs.
  d.mixing.assign(static_cast<size_t>(d.heads) * d.heads, 0.0f);
  for (int i = 0; i < d.heads; ++i)
    for (int j = 0; j < d.heads; ++j) {
      float v = (i == j ? 0.85f : 0.0f) + 0.22f * gauss(rng);
      if ((i + 2 * j) % 7 == 0 && i != j) v += (i % 2 ? -0.6f : 0.6f);
      d.mixing[static_cast<size_t>(i) * d.heads + j] = std::clamp(v, -1.0f, 1.0f);
    }

  // Training curves.
  d.points = std::max(2, points);
  d.steps.resize(d.points);
  d.train.resize(d.points);
  d.val.resize(d.points);
  d.train_ema.resize(d.points);
  d.band_lo.resize(d.points);
  d.band_hi.resize(d.points);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  float ema = 0.0f, ema_var = 0.0f;
  for (int i = 0; i < d.points; ++i) {
    const float s = static_cast<float>(i);
    d.steps[i] = s + 1.0f;
    const float base = 0.85f + 4.0f * std::exp(-s / 2500.0f) + 0.9f * std::exp(-s / 250.0f);
    float noise = 0.07f * gauss(rng) * (0.4f + base * 0.25f);
    if (uni(rng) < 0.0015f) noise += 0.8f * uni(rng);  // the occasional loss spike
    d.train[i] = base + noise;
    d.val[i] = 0.95f + 3.9f * std::exp(-s / 2800.0f) + 0.85f * std::exp(-s / 260.0f) + 0.004f * gauss(rng) +
               0.05f * std::max(0.0f, (s - 14000.0f) / 6000.0f);  // slight overfitting at the end
    const float a = 0.01f;
    ema = i == 0 ? d.train[i] : ema + a * (d.train[i] - ema);
    const float dev = d.train[i] - ema;
    ema_var = i == 0 ? 0.01f : (1 - a) * (ema_var + a * dev * dev);
    d.train_ema[i] = ema;
    const float sd = std::sqrt(ema_var);
    d.band_lo[i] = ema - sd;
    d.band_hi[i] = ema + sd;
  }

  // Spectrum of a d_model x d_model product of rank 12 with d_head = 16.
  d.rank = 12;
  d.cap = 16;
  const int m = 48;
  for (int i = 0; i < m; ++i) {
    float v = i < d.rank ? 9.0f * std::exp(-static_cast<float>(i) / 4.5f) + 0.05f
                         : 3e-6f * std::exp(-static_cast<float>(i - d.rank) / 30.0f) * (0.6f + 0.4f * uni(rng));
    d.spectrum.push_back(v);
  }
  std::sort(d.spectrum.begin(), d.spectrum.end(), std::greater<float>());
  return d;
}

std::vector<std::vector<float>> make_stress_maps(int count, int n) {
  std::vector<std::vector<float>> maps(std::max(0, count));
  for (int h = 0; h < count; ++h) {
    std::vector<float>& m = maps[h];
    m.assign(static_cast<size_t>(n) * n, 0.0f);
    const int offset = 1 + h % 5, width = 2 + h % 7;
    for (int q = 0; q < n; ++q)
      for (int k = 0; k <= q; ++k) {
        const float dq = static_cast<float>(q - k - offset * (h % 3));
        float v = -dq * dq / (2.0f * width * width);
        if (h % 4 == 1 && k == 0) v += 4.0f;                            // attention sink
        if (h % 6 == 2) v += 1.5f * std::sin(0.05f * k * (1 + h % 3));  // stripes
        m[static_cast<size_t>(q) * n + k] = v;
      }
    softmax_causal(m, n);
  }
  return maps;
}

void animate_demo_maps(DemoData& d, float phase) {
  const int n = d.tokens;
  for (int h = 0; h < d.heads; ++h) {
    std::vector<float>& m = d.head_maps[h];
    for (int q = 0; q < n; ++q)
      for (int k = 0; k <= q; ++k)
        m[static_cast<size_t>(q) * n + k] =
            pattern_logit(h, q, k, d.token_text, 0.0f) + 1.5f * std::sin(phase + 0.3f * k + 0.7f * h);
    softmax_causal(m, n);
  }
}

}  // namespace headroom::widgets
