// The format search: which dtype/format combinations supportsFormatCombination accepts, and
// whether each answer depends only on the positions TensorRT has fixed.
#include <functional>
#include <random>

#include "capabilities.h"
#include "case_run.h"
#include "trt_text.h"

namespace autoplugin::check {

using nvinfer1::DataType;
using nvinfer1::TensorFormat;
using trt::build_of;

// TensorRT asks position by position; the answer for `pos` may only depend on positions
// 0..pos. Enumerates combinations in that order and, at each question, asks again with the later
// positions changed: any different answer is a violation.
void CaseRun::formats() {
  auto* build = build_of(*plugin_);
  const int n = nb_inputs_ + nb_outputs_;
  const std::vector<DataType> types{DataType::kFLOAT, DataType::kHALF,  DataType::kBF16,
                                    DataType::kINT8,  DataType::kINT32, DataType::kINT64};
  const std::vector<TensorFormat> layouts{TensorFormat::kLINEAR, TensorFormat::kHWC8,
                                          TensorFormat::kCHW4, TensorFormat::kCHW32};
  // As in the build phase: desc.dims -1 where the profile is dynamic, min/opt/max filled in.
  const ProfileDescs profile = profile_descs(std::nullopt);
  std::vector<nvinfer1::DynamicPluginTensorDesc> descs = profile.in;
  descs.insert(descs.end(), profile.out.begin(), profile.out.end());
  std::vector<nvinfer1::DynamicPluginTensorDesc> io = descs;
  std::mt19937 rng(static_cast<std::uint32_t>(options_.seed));
  std::string violation;
  int accepted = 0;
  int questions = 0;
  constexpr int kMaxQuestions = 4000;
  std::function<void(int)> search = [&](int pos) {
    if (pos == n) {
      ++accepted;
      return;
    }
    for (DataType t : types) {
      for (TensorFormat f : layouts) {
        if (questions >= kMaxQuestions || !violation.empty()) return;
        io[std::size_t(pos)].desc.type = t;
        io[std::size_t(pos)].desc.format = f;
        ++questions;
        const bool answer =
            build->supportsFormatCombination(pos, io.data(), nb_inputs_, nb_outputs_);
        const auto saved = io;
        for (int probe = 0; probe < 3 && pos + 1 < n; ++probe) {
          for (int later = pos + 1; later < n; ++later) {
            io[std::size_t(later)].desc.type = types[rng() % types.size()];
            io[std::size_t(later)].desc.format = layouts[rng() % layouts.size()];
          }
          if (build->supportsFormatCombination(pos, io.data(), nb_inputs_, nb_outputs_) != answer) {
            violation = "supportsFormatCombination(pos=" + std::to_string(pos) + ") answered " +
                        (answer ? "true" : "false") + " for " + dtype_text(t) + "/" +
                        format_text(f) + ", then the opposite when only positions after " +
                        std::to_string(pos) +
                        " changed: the answer for pos may only depend on positions 0..pos";
          }
        }
        io = saved;
        if (answer) search(pos + 1);
      }
    }
  };
  step("supportsFormatCombination", [&]() -> std::string {
    search(0);
    if (!violation.empty()) return violation;
    if (accepted == 0) return "no combination of dtypes and formats is accepted";
    report_.info("format combinations",
                 std::to_string(accepted) + " accepted (" + std::to_string(questions) +
                     " questions" + (questions >= kMaxQuestions ? ", search capped" : "") + ")");
    // The combination this case runs: its input dtypes and the outputs' reported dtypes, LINEAR.
    io = descs;
    for (int p = 0; p < n; ++p) {
      if (!build->supportsFormatCombination(p, io.data(), nb_inputs_, nb_outputs_)) {
        return "the case's combination is rejected at position " + std::to_string(p) + " (" +
               dtype_text(io[std::size_t(p)].desc.type) + ", LINEAR)";
      }
    }
    return "";
  });
}

}  // namespace autoplugin::check
