// Runs each case in a child process, so that a plugin that aborts, raises a signal, calls exit()
// or hangs ends only its own case: the parent reports how far the case got, the method that was
// running and what the plugin logged, then goes on with the next case.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace autoplugin::check {

// The child's side: messages to the parent, one JSON object per line on a pipe.
class ProgressChannel {
 public:
  explicit ProgressChannel(int fd) : fd_(fd) {}
  // The step (plugin method) about to run, named in the report if the process ends inside it.
  void step_started(const std::string& step);
  // Everything the child reported so far; the parent keeps the latest.
  void result(const nlohmann::json& result);
  void log(const std::string& line);

 private:
  void send(const nlohmann::json& message);
  int fd_;
};

struct IsolatedRun {
  std::optional<nlohmann::json> result;       // the last result the child sent
  bool finished = false;                      // the body returned and the child exited normally
  std::string last_step;                      // the last step started
  bool inside_step = false;                   // last_step had not reported its result
  std::vector<std::string> log_since_result;  // lines logged after the last result
  std::string termination;  // how the child ended, when not finished ("signal 6, SIGABRT")
  bool timed_out = false;
};

// Runs `body` in a forked child and waits at most `timeout` for it. Flushes stdio first so that
// nothing buffered is written twice.
IsolatedRun run_isolated(const std::function<void(ProgressChannel&)>& body,
                         std::chrono::seconds timeout);

}  // namespace autoplugin::check
