#include "isolation.h"

#include <autoplugin/error.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace autoplugin::check {
namespace {

std::string signal_text(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return "signal " + std::to_string(signal) +
         (abbreviation != nullptr ? ", SIG" + std::string(abbreviation) : std::string());
}

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; nothing left to tell
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

void ProgressChannel::send(const nlohmann::json& message) {
  // Replaced rather than thrown: plugin log lines need not be valid UTF-8.
  write_all(fd_, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void ProgressChannel::step_started(const std::string& step) { send({{"step", step}}); }
void ProgressChannel::result(const nlohmann::json& result) { send({{"result", result}}); }
void ProgressChannel::log(const std::string& line) { send({{"log", line}}); }

IsolatedRun run_isolated(const std::function<void(ProgressChannel&)>& body,
                         std::chrono::seconds timeout) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(fds[0]);
    int status = 0;
    {
      ProgressChannel channel(fds[1]);
      try {
        body(channel);
        write_all(fds[1], "{\"finished\":true}\n");
      } catch (const std::exception& e) {
        channel.log(std::string("autoplugin check: ") + e.what());
        status = 3;
      }
    }
    std::fflush(nullptr);
    // No atexit handlers or static destructors: they belong to the parent.
    ::_exit(status);
  }
  ::close(fds[1]);

  IsolatedRun run;
  bool finished_message = false;
  std::string buffer;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char chunk[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.timed_out = true;
      ::kill(child, SIGKILL);
      break;
    }
    pollfd fd{fds[0], POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: it has ended
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t end; (end = buffer.find('\n')) != std::string::npos;) {
      const nlohmann::json message = nlohmann::json::parse(buffer.substr(0, end), nullptr, false);
      buffer.erase(0, end + 1);
      if (message.is_discarded() || !message.is_object()) continue;
      if (message.contains("step")) {
        run.last_step = message["step"].get<std::string>();
        run.inside_step = true;
      } else if (message.contains("result")) {
        run.result = message["result"];
        run.inside_step = false;
        run.log_since_result.clear();
      } else if (message.contains("log")) {
        run.log_since_result.push_back(message["log"].get<std::string>());
      } else if (message.contains("finished")) {
        finished_message = true;
      }
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (run.timed_out) {
    run.termination = "no answer within " + std::to_string(timeout.count()) + " s";
  } else if (WIFSIGNALED(status)) {
    run.termination = signal_text(WTERMSIG(status));
  } else if (WIFEXITED(status) && (WEXITSTATUS(status) != 0 || !finished_message)) {
    run.termination = "exit code " + std::to_string(WEXITSTATUS(status));
  } else {
    run.finished = true;
  }
  return run;
}

}  // namespace autoplugin::check
