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

namespace {

// Every format TensorRT may offer a plugin's tensor of this rank (NvInferRuntime.h): LINEAR for
// any rank, the vectorized formats from rank 3 (vector dimension third to last) or rank 4
// (fourth to last). The DLA-only formats (kCHW16, kDLA_LINEAR, kDLA_HWC4) are left out: plugins
// run on the GPU.
std::vector<TensorFormat> formats_for_rank(int rank) {
  std::vector<TensorFormat> formats{TensorFormat::kLINEAR};
  if (rank >= 3) {
    formats.insert(formats.end(), {TensorFormat::kCHW2, TensorFormat::kHWC8, TensorFormat::kCHW4,
                                   TensorFormat::kCHW32, TensorFormat::kHWC, TensorFormat::kHWC16});
  }
  if (rank >= 4) {
    formats.insert(formats.end(),
                   {TensorFormat::kDHWC8, TensorFormat::kCDHW32, TensorFormat::kDHWC});
  }
  return formats;
}

}  // namespace

// TensorRT asks position by position; the answer for `pos` may only depend on positions
// 0..pos. Enumerates combinations in that order and, at each question, asks again with the later
// positions changed: any different answer is a violation.
void CaseRun::formats() {
  auto* build = build_of(*plugin_);
  const int n = nb_inputs_ + nb_outputs_;
  const std::vector<DataType> types{DataType::kFLOAT, DataType::kHALF, DataType::kBF16,
                                    DataType::kFP8,   DataType::kINT8, DataType::kINT32,
                                    DataType::kINT64};
  // As in the build phase: desc.dims -1 where the profile is dynamic, min/opt/max filled in.
  const ProfileDescs profile = profile_descs(std::nullopt);
  std::vector<nvinfer1::DynamicPluginTensorDesc> descs = profile.in;
  descs.insert(descs.end(), profile.out.begin(), profile.out.end());
  std::vector<nvinfer1::DynamicPluginTensorDesc> io = descs;
  std::vector<std::vector<TensorFormat>> layouts;
  for (const auto& d : descs) layouts.push_back(formats_for_rank(d.desc.dims.nbDims));
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
      for (TensorFormat f : layouts[std::size_t(pos)]) {
        if (questions >= kMaxQuestions || !violation.empty()) return;
        io[std::size_t(pos)].desc.type = t;
        io[std::size_t(pos)].desc.format = f;
        ++questions;
        const bool answer =
            build->supportsFormatCombination(pos, io.data(), nb_inputs_, nb_outputs_);
        const auto saved = io;
        // Every dtype at every later position at least once; formats at random.
        for (std::size_t probe = 0; probe < types.size() && pos + 1 < n; ++probe) {
          for (int later = pos + 1; later < n; ++later) {
            io[std::size_t(later)].desc.type = types[(probe + std::size_t(later)) % types.size()];
            const auto& choices = layouts[std::size_t(later)];
            io[std::size_t(later)].desc.format = choices[rng() % choices.size()];
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
