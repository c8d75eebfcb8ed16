#include "concurrency.h"

#include <autoplugin/error.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>

#include "capabilities.h"
#include "device.h"
#include "resource_context.h"

namespace autoplugin::check {
namespace {

using trt::runtime_of;
using Clock = std::chrono::steady_clock;

// At most this many mismatches are described; all are counted.
constexpr std::size_t kDescribed = 5;

// Page-locked host memory: a copy into it on a stream returns at once (into pageable memory it
// would wait for the stream), so that the contexts of one thread run at the same time too.
class PinnedBytes {
 public:
  explicit PinnedBytes(std::size_t bytes) : bytes_(bytes) {
    if (bytes != 0 && cudaMallocHost(&data_, bytes) != cudaSuccess) {
      throw Error("cudaMallocHost of " + std::to_string(bytes) + " bytes failed");
    }
  }
  ~PinnedBytes() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedBytes(PinnedBytes&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  PinnedBytes(const PinnedBytes&) = delete;
  PinnedBytes& operator=(const PinnedBytes&) = delete;
  std::byte* data() const noexcept { return static_cast<std::byte*>(data_); }
  std::size_t size() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

struct CaseRecipe {
  std::string name;
  LaunchRecipe recipe;
};

// One case in one execution context: its own plugin, attached to the context's resources, and
// its own buffers.
struct AttachedCase {
  const CaseRecipe* source = nullptr;
  PluginPtr plugin;
  std::vector<DeviceBuffer> inputs, outputs;
  std::vector<const void*> input_ptrs;
  std::vector<void*> output_ptrs;
  std::unique_ptr<DeviceBuffer> workspace;
  std::vector<PinnedBytes> downloaded;
};

struct ExecutionContext {
  int thread = 0;
  int index = 0;  // among its thread's contexts
  std::unique_ptr<CheckResourceContext> resources = std::make_unique<CheckResourceContext>();
  Stream stream{true};
  std::vector<AttachedCase> cases;

  std::string where() const {
    return "thread " + std::to_string(thread) + ", context " + std::to_string(index);
  }
};

AttachedCase attach(const CaseRecipe& c, ExecutionContext& context) {
  AttachedCase a;
  a.source = &c;
  const Launch& launch = c.recipe.launch;
  a.plugin.reset(runtime_of(*c.recipe.plugin)->attachToContext(context.resources.get()));
  if (!a.plugin) throw Error("case '" + c.name + "': attachToContext returned null");
  auto* runtime = runtime_of(*a.plugin);
  if (runtime == nullptr) throw Error("case '" + c.name + "': the attached plugin has no kRUNTIME");
  if (runtime->onShapeChange(launch.in_descs.data(), int(launch.in_descs.size()),
                             launch.out_descs.data(), int(launch.out_descs.size())) != 0) {
    throw Error("case '" + c.name + "': onShapeChange returned an error");
  }
  for (const HostTensor& t : launch.inputs) {
    a.inputs.emplace_back(t.bytes.size());
    a.inputs.back().upload(t.bytes.data(), t.bytes.size());
    a.input_ptrs.push_back(a.inputs.back().data());
  }
  for (std::size_t bytes : launch.output_bytes) {
    a.outputs.emplace_back(bytes);
    a.output_ptrs.push_back(a.outputs.back().data());
    a.downloaded.emplace_back(bytes);
  }
  a.workspace = std::make_unique<DeviceBuffer>(launch.workspace);
  return a;
}

struct ThreadResult {
  std::uint64_t launches = 0;
  std::uint64_t mismatches = 0;
  std::vector<std::string> problems;  // errors, and the first mismatches described
};

// One thread: every case of every one of its contexts, enqueued (outputs poisoned first) and
// copied back on the context's stream, then compared; again until the deadline.
void enqueue_until(std::vector<ExecutionContext*> contexts, Clock::time_point deadline,
                   ThreadResult& result) {
  try {
    for (std::uint64_t round = 0; round == 0 || Clock::now() < deadline; ++round) {
      for (ExecutionContext* context : contexts) {
        for (AttachedCase& a : context->cases) {
          const Launch& launch = a.source->recipe.launch;
          for (DeviceBuffer& b : a.outputs) b.poison_async(context->stream.get());
          if (runtime_of(*a.plugin)->enqueue(launch.in_descs.data(), launch.out_descs.data(),
                                             a.input_ptrs.data(), a.output_ptrs.data(),
                                             a.workspace->data(), context->stream.get()) != 0) {
            result.problems.push_back("case '" + a.source->name + "' (" + context->where() +
                                      "): enqueue returned an error");
            return;
          }
          ++result.launches;
          for (std::size_t j = 0; j < a.outputs.size(); ++j) {
            a.outputs[j].download_async(a.downloaded[j].data(), a.downloaded[j].size(),
                                        context->stream.get());
          }
        }
      }
      for (ExecutionContext* context : contexts) {
        context->stream.synchronize("after enqueue (" + context->where() + ")");
        if (const std::string reported = context->resources->take_reported_errors();
            !reported.empty()) {
          result.problems.push_back(context->where() + ": " + reported);
          return;
        }
        for (const AttachedCase& a : context->cases) {
          const auto& expected = a.source->recipe.launch.outputs;
          for (std::size_t j = 0; j < expected.size(); ++j) {
            // Data-dependent outputs: the rows their size tensor (itself compared) counts.
            const std::vector<std::byte>& bytes = expected[j].bytes;
            const PinnedBytes& actual = a.downloaded[j];
            if (bytes.empty() || (bytes.size() <= actual.size() &&
                                  std::memcmp(actual.data(), bytes.data(), bytes.size()) == 0)) {
              continue;
            }
            ++result.mismatches;
            if (result.problems.size() >= kDescribed) continue;
            std::size_t at = 0;
            while (at < bytes.size() && at < actual.size() && actual.data()[at] == bytes[at]) ++at;
            result.problems.push_back("case '" + a.source->name + "', output " + std::to_string(j) +
                                      " (" + context->where() + ", round " +
                                      std::to_string(round + 1) + "): byte " + std::to_string(at) +
                                      " differs from the serial run's");
          }
        }
      }
    }
  } catch (const std::exception& e) {
    result.problems.push_back(e.what());
  }
}

std::string seconds_text(Clock::duration d) {
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << std::chrono::duration<double>(d).count() << " s";
  return text.str();
}

}  // namespace

void run_concurrency(const Options& options, PluginLibrary& library, CapturingLogger& logger,
                     Report& report, ProgressChannel& channel) {
  report.begin_case("concurrency");
  // As CaseRun's steps: a FAIL carries what the plugin logged, a pass lists it.
  auto step = [&](const std::string& name, const std::function<std::string()>& body) {
    channel.step_started(name);
    const std::size_t at = report.mark();
    std::string problem;
    try {
      problem = body();
    } catch (const std::exception& e) {
      problem = e.what();
    }
    const std::vector<std::string> log = logger.take();
    if (problem.empty()) {
      report.insert(at, Report::Status::Passed, name);
      for (const auto& line : log) report.info(name, "plugin log: " + line);
    } else {
      for (const auto& line : log) problem += "\nplugin log: " + line;
      report.insert(at, Report::Status::Failed, name, problem);
    }
    channel.result(report.last_case_json());
    return problem.empty();
  };

  // The serial runs, again in this process (the cases' reports come from their own runs): the
  // outputs every concurrent launch must reproduce.
  std::vector<CaseRecipe> recipes;
  std::string left_out;
  Options serial = options;
  serial.reference.clear();
  serial.reference_op.clear();
  if (!step("serial run of every case", [&]() -> std::string {
        for (const CheckCase& c : options.cases) {
          if (c.expect_error) continue;  // meant to fail
          Report quiet;
          CaseRun run(serial, c, library, logger, quiet, true);
          run.keep_launch_recipe();
          run.run();
          std::optional<LaunchRecipe> recipe = run.take_launch_recipe();
          if (quiet.failures() == 0 && recipe) {
            recipes.push_back({c.name, std::move(*recipe)});
          } else {
            left_out += (left_out.empty() ? "'" : ", '") + c.name + "'";
          }
        }
        logger.take();
        if (!left_out.empty()) {
          report.info("left out", "cases whose serial run did not pass: " + left_out);
        }
        return recipes.empty() ? "no case passed its serial run: nothing to run concurrently" : "";
      })) {
    return;
  }

  const int threads = options.threads;
  const int per_thread = options.contexts;
  std::vector<std::unique_ptr<ExecutionContext>> contexts;
  if (!step("attachToContext and onShapeChange: " + std::to_string(threads * per_thread) +
                " execution contexts x " + std::to_string(recipes.size()) + " cases",
            [&]() -> std::string {
              for (int i = 0; i < threads * per_thread; ++i) {
                auto& context = *contexts.emplace_back(std::make_unique<ExecutionContext>());
                context.thread = i / per_thread;
                context.index = i % per_thread;
                for (const CaseRecipe& c : recipes) context.cases.push_back(attach(c, context));
                if (std::string reported = context.resources->take_reported_errors();
                    !reported.empty()) {
                  return context.where() + ": " + reported;
                }
              }
              return "";
            })) {
    return;
  }

  step("concurrent enqueue, outputs bitwise equal to the serial run", [&]() -> std::string {
    std::vector<ThreadResult> results(static_cast<std::size_t>(threads));
    std::vector<std::thread> running;
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline = start + options.concurrency_duration;
    for (int t = 0; t < threads; ++t) {
      std::vector<ExecutionContext*> own;
      for (int m = 0; m < per_thread; ++m) {
        own.push_back(contexts[std::size_t(t * per_thread + m)].get());
      }
      running.emplace_back(enqueue_until, own, deadline, std::ref(results[std::size_t(t)]));
    }
    for (std::thread& t : running) t.join();
    const Clock::duration elapsed = Clock::now() - start;
    std::uint64_t launches = 0;
    std::uint64_t mismatches = 0;
    std::string problems;
    for (const ThreadResult& r : results) {
      launches += r.launches;
      mismatches += r.mismatches;
      for (const std::string& p : r.problems) problems += (problems.empty() ? "" : "\n") + p;
    }
    report.info("concurrency", std::to_string(threads) + " threads x " +
                                   std::to_string(per_thread) +
                                   " contexts (each on its own "
                                   "stream), " +
                                   seconds_text(elapsed) + ": " + std::to_string(launches) +
                                   " launches of " + std::to_string(recipes.size()) + " cases, " +
                                   std::to_string(mismatches) + " mismatches");
    return problems;
  });

  step("destroy the attached plugins", [&]() -> std::string {
    std::string problems;
    for (const auto& context : contexts) {
      context->cases.clear();
      if (std::string p = context->resources->allocator().problems(); !p.empty()) {
        problems += (problems.empty() ? "" : "\n") + context->where() + ": " + p;
      }
    }
    return problems;
  });
}

}  // namespace autoplugin::check
