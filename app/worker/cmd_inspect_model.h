// `inspect --model DIR`: a real checkpoint's heads on one text (cmd_inspect_model.cpp).
#pragma once

#include <string>

namespace headroom::worker {

struct InspectModelOptions {
  std::string model;  // a Hugging Face model directory
  std::string text, ids;
  bool no_special_tokens = false, json = false;
  std::string dump;
  int layer = 0;
};

int run_inspect_model(const InspectModelOptions& o);

}  // namespace headroom::worker
