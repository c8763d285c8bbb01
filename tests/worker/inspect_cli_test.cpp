// `headroom-worker inspect`, checked from outside exactly as the contract is written.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_bridge.h"

using headroom::core::from_st_tensor;
using headroom::core::read_safetensors_file;
using nlohmann::json;

TEST(InspectCli, TalkingHeadsRowOfThTableOne) {
  auto r = run_worker({"inspect", "--attention", "talking-heads", "--d-model", "768", "--heads", "12", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["params_per_attention_layer"].get<int64_t>(), 2359584);
  EXPECT_TRUE(j["multiplies_per_attention_layer"].is_number_integer());
  EXPECT_EQ(j["multiplies_per_attention_layer"].get<int64_t>(), 1686110208);  // printed 1.686e9
  EXPECT_EQ(j["d_k"], 64);
  EXPECT_EQ(j["d_v"], 64);
  ASSERT_TRUE(j["bottlenecks"].is_array());
  ASSERT_FALSE(j["bottlenecks"].empty());  // d_k = 64 < n = 512
  for (const auto& b : j["bottlenecks"]) {
    EXPECT_TRUE(b["paper"].is_string());
    EXPECT_TRUE(b["section"].is_string());
    EXPECT_TRUE(b["message"].is_string());
  }
  EXPECT_EQ(j["bottlenecks"][0]["paper"], "LRB");
}

TEST(InspectCli, SeparateHeadCountsAndSizes) {
  // TH Table 2: h_k = 6, h = 24, h_v = 24, d_k = 128, d_v = 32 -> 2360016 parameters.
  auto r = run_worker({"inspect", "--attention", "talking-heads", "--d-model", "768", "--heads", "24", "--heads-k", "6",
                       "--heads-v", "24", "--dk", "128", "--dv", "32", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["params_per_attention_layer"], 2360016);
  EXPECT_EQ(j["d_k"], 128);
  EXPECT_EQ(j["heads_k"], 6);
}

TEST(InspectCli, DefaultsAndNoBottleneckAtShortN) {
  auto r =
      run_worker({"inspect", "--attention", "multi-head", "--d-model", "64", "--heads", "4", "--n", "8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["d_k"], 16);
  EXPECT_TRUE(j["bottlenecks"].empty());
}

TEST(InspectCli, BadInputsExitNonZeroWithOneClearMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"inspect", "--attention", "multi-head", "--d-model", "64", "--heads", "0", "--json"}, "--heads"},
      {{"inspect", "--attention", "multi-head", "--d-model", "100", "--heads", "3", "--json"}, "not divisible"},
      {{"inspect", "--attention", "multihead", "--d-model", "64", "--heads", "4", "--json"}, "talking-heads"},
      {{"inspect", "--attention", "multi-head", "--d-model", "64", "--heads", "4", "--heads-k", "2", "--json"},
       "--heads-k"},
      {{"inspect", "--attention", "logits-proj", "--d-model", "64", "--heads", "4", "--heads-v", "2", "--json"},
       "--heads-v"},
      {{"inspect", "--attention", "multi-head", "--d-model", "64", "--heads", "4", "--dk", "8", "--json"},
       "fixed-head"},
      {{"inspect", "--attention", "multi-head", "--heads", "4", "--json"}, "--d-model"},
      {{"inspect", "--attention", "multi-head", "--d-model", "sixty", "--heads", "4"}, "--d-model"},
      {{"inspect", "--attention", "multi-head", "--d-model", "64", "--heads", "4", "--n", "0"}, "--n"},
  };
  for (const auto& c : cases) {
    auto r = run_worker(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.expect << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.expect;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << "stderr lacks '" << c.expect << "': " << r.err;
  }
}

namespace {

// TH's pseudo-code (§4, §6, appendix A) evaluated in float64 from the dumped tensors.
struct Reference {
  torch::Tensor W, Y;
};

Reference th_reference(const headroom::core::StFile& f, const json& spec, double scale) {
  auto get = [&](const char* name) { return from_st_tensor(f.at(name)).to(torch::kFloat64); };
  auto has = [&](const char* name) { return f.find(name) != nullptr; };
  const auto X = get("X");
  const int64_t n = X.size(0);
  const bool causal = spec["causal"].get<bool>();
  auto mask = [&](torch::Tensor L) {  // L[n, m, h]
    if (!causal) return L;
    auto future = torch::ones({n, n}, torch::kBool).triu(1).unsqueeze(-1);
    return L.masked_fill(future, -INFINITY);
  };
  if (spec["kind"] == "general-bilinear") {
    auto L = mask(torch::einsum("nx,my,xyh->nmh", {X, X, get("P")}));
    auto W = torch::softmax(L, 1);
    return {W, torch::einsum("nmh,my,yzh->nz", {W, X, get("Q")})};
  }
  auto Q = torch::einsum("nx,xkh->nkh", {X, get("P_q")});
  auto K = torch::einsum("mx,xkh->mkh", {X, get("P_k")});
  auto V = torch::einsum("mx,xvh->mvh", {X, get("P_v")});
  auto J = torch::einsum("nkh,mkh->nmh", {Q, K}) * scale;
  auto L = has("P_l") ? torch::einsum("nmk,kh->nmh", {J, get("P_l")}) : J;
  if (has("P_Xl")) L = L + torch::einsum("nmk,nkh->nmh", {J, torch::einsum("nx,xkh->nkh", {X, get("P_Xl")})});
  if (has("P_Ml")) L = L + torch::einsum("nmk,mkh->nmh", {J, torch::einsum("mx,xkh->mkh", {X, get("P_Ml")})});
  auto W = torch::softmax(mask(L), 1);
  auto U = has("P_w") ? torch::einsum("nmh,hv->nmv", {W, get("P_w")}) : W;
  if (has("P_Xw")) U = U + torch::einsum("nmh,nhv->nmv", {W, torch::einsum("nx,xhv->nhv", {X, get("P_Xw")})});
  if (has("P_Mw")) U = U + torch::einsum("nmh,mhv->nmv", {W, torch::einsum("mx,xhv->mhv", {X, get("P_Mw")})});
  auto O = torch::einsum("nmv,mdv->ndv", {U, V});
  return {W, torch::einsum("ndv,ydv->ny", {O, get("P_o")})};
}

}  // namespace

TEST(InspectCli, OutputFilesNeverOverwriteADatabase) {
  const std::string db = temp_path("keep_me.sqlite");
  std::remove(db.c_str());
  auto args = train_args(db, "keep");
  args[args.size() - 12] = "10";  // 10 steps
  ASSERT_EQ(run_worker(args).exit_code, 0);
  const size_t before = file_hash(db);
  for (const auto& cmd : std::vector<std::vector<std::string>>{
           {"inspect", "--attention", "multi-head", "--d-model", "16", "--heads", "2", "--n", "8", "--dump", db},
           {"represent", "--sweep", "2:2", "--targets", "1", "--restarts", "1", "--csv", db}}) {
    const auto r = run_worker(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd[0];
    EXPECT_NE(r.err.find("is an SQLite database (an experiments DB?), which this would overwrite; give a new path"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(file_hash(db), before) << cmd[0] << " overwrote the DB";
  }
  const auto r = run_worker({"represent", "--sweep", "2:2", "--targets", "1", "--csv", "/no/such/folder/x.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the folder /no/such/folder does not exist"), std::string::npos) << r.err;
}

TEST(InspectCli, DumpMatchesThPseudoCodeForEveryKind) {
  const std::vector<std::string> kinds = {"multi-head",   "fixed-head",   "talking-heads",   "logits-proj",
                                          "weights-proj", "dynamic-proj", "general-bilinear"};
  for (const auto& kind : kinds) {
    for (bool causal : {false, true}) {
      const std::string path = temp_path(kind + (causal ? "_c" : "") + ".safetensors");
      std::vector<std::string> args = {"inspect", "--attention", kind,     "--d-model", "24",     "--heads", "4",
                                       "--n",     "7",           "--seed", "3",         "--dump", path,      "--json"};
      if (kind == "talking-heads" || kind == "dynamic-proj")
        args.insert(args.end(), {"--heads-k", "2", "--heads-v", "3"});
      if (kind == "fixed-head") args.insert(args.end(), {"--dk", "5", "--dv", "9"});
      if (causal) args.push_back("--causal");
      auto r = run_worker(args);
      ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.err;
      const auto f = read_safetensors_file(path);
      const auto spec = json::parse(f.metadata.at("spec"));
      const double scale = std::stod(f.metadata.at("logit_scale"));
      EXPECT_EQ(json::parse(r.out)["logit_scale"].get<double>(), scale);
      const int64_t h = spec["heads"];
      EXPECT_EQ(from_st_tensor(f.at("W")).sizes().vec(), (std::vector<int64_t>{7, 7, h})) << kind;
      EXPECT_EQ(from_st_tensor(f.at("Y")).sizes().vec(), (std::vector<int64_t>{7, 24})) << kind;
      EXPECT_EQ(f.at("X").dtype, "F32");
      const auto ref = th_reference(f, spec, scale);
      EXPECT_TRUE(torch::allclose(from_st_tensor(f.at("W")).to(torch::kFloat64), ref.W, 1e-4, 1e-6)) << kind;
      EXPECT_TRUE(torch::allclose(from_st_tensor(f.at("Y")).to(torch::kFloat64), ref.Y, 1e-4, 1e-5)) << kind;
      // The logit factors: every head's A[h] B[h]^T is its L.
      const auto AB = torch::einsum("hnr,hmr->nmh", {from_st_tensor(f.at("A")), from_st_tensor(f.at("B"))});
      EXPECT_TRUE(torch::allclose(AB, from_st_tensor(f.at("L")), 1e-4, 1e-5)) << kind;
      std::remove(path.c_str());
    }
  }
}

TEST(InspectCli, DumpIsDeterministicForASeed) {
  const std::string a = temp_path("a.safetensors"), b = temp_path("b.safetensors");
  for (const auto& p : {a, b})
    ASSERT_EQ(run_worker({"inspect", "--attention", "talking-heads", "--d-model", "16", "--heads", "4", "--n", "5",
                          "--seed", "9", "--dump", p})
                  .exit_code,
              0);
  EXPECT_TRUE(
      torch::equal(from_st_tensor(read_safetensors_file(a).at("Y")), from_st_tensor(read_safetensors_file(b).at("Y"))));
}

// The traced path on a device (issue 11): --device cpu writes the default dump bit for bit; on a
// GPU, the CUDA forward pass of the same layer and X equals the CPU's within float32 rounding;
// without one, the worker says why and exits 2 (the test then skips, naming the reason).
TEST(InspectCli, DumpOnADeviceEqualsTheCpuDump) {
  const std::string base = temp_path("dev_default.safetensors"), cpu = temp_path("dev_cpu.safetensors"),
                    gpu = temp_path("dev_cuda.safetensors");
  const std::vector<std::string> args = {"inspect", "--attention", "talking-heads", "--d-model", "32",
                                         "--heads", "8",           "--heads-k",     "4",         "--n",
                                         "9",       "--causal",    "--seed",        "5",         "--dump"};
  auto with = [&](const std::string& path, std::vector<std::string> extra) {
    auto a = args;
    a.push_back(path);
    a.insert(a.end(), extra.begin(), extra.end());
    return run_worker(a);
  };
  ASSERT_EQ(with(base, {}).exit_code, 0);
  ASSERT_EQ(with(cpu, {"--device", "cpu"}).exit_code, 0);
  const auto b = read_safetensors_file(base), c = read_safetensors_file(cpu);
  EXPECT_EQ(c.metadata.at("device"), "cpu");
  for (const char* t : {"X", "W", "J", "L", "U", "Y", "P_l", "P_w"})
    EXPECT_TRUE(torch::equal(from_st_tensor(b.at(t)), from_st_tensor(c.at(t)))) << t;
  auto bad = with(temp_path("dev_bad.safetensors"), {"--device", "tpu"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("use auto, cpu, cuda or cuda:N"), std::string::npos) << bad.err;

  const auto r = with(gpu, {"--device", "cuda"});
  if (r.exit_code != 0) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("headroom-worker inspect: --device"), std::string::npos) << r.err;
    GTEST_SKIP() << "no GPU here: " << r.err;
  }
  const auto g = read_safetensors_file(gpu);
  EXPECT_EQ(g.metadata.at("device").rfind("cuda:", 0), 0u) << g.metadata.at("device");
  EXPECT_TRUE(torch::equal(from_st_tensor(b.at("X")), from_st_tensor(g.at("X")))) << "X is drawn on the CPU";
  for (const char* t : {"W", "J", "L", "U", "Y"})
    EXPECT_TRUE(torch::allclose(from_st_tensor(g.at(t)), from_st_tensor(b.at(t)), 1e-4, 1e-5)) << t;
}
