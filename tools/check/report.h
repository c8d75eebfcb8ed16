// What `autoplugin check` and `inspect` found: steps grouped by case, as text or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace autoplugin::check {

class Report {
 public:
  enum class Status { Passed, Failed, Skipped, Info };

  void begin_case(std::string name);
  void add(Status status, std::string step, std::string detail = {});
  // Where the next step of the current case goes; `insert` puts a step there, so that a step's
  // result line comes before the notes its body added.
  std::size_t mark() const noexcept { return cases_.empty() ? 0 : cases_.back().steps.size(); }
  void insert(std::size_t at, Status status, std::string step, std::string detail = {});
  void fail(std::string step, std::string detail) {
    add(Status::Failed, std::move(step), std::move(detail));
  }
  void skip(std::string step, std::string detail) {
    add(Status::Skipped, std::move(step), std::move(detail));
  }
  void info(std::string step, std::string detail) {
    add(Status::Info, std::move(step), std::move(detail));
  }

  // The steps of the latest case, and a case from another Report (as case_json gives it): how a
  // case run in a child process reaches the parent's report.
  nlohmann::json last_case_json() const;
  void append_case(const nlohmann::json& c);

  // For a case that must fail: its failed steps that mention `text` pass ("failed as
  // expected"); when none does, a failed step says so.
  void expect_error(const std::string& text);

  int failures() const noexcept { return failures_; }
  void print(std::ostream& out) const;
  nlohmann::json to_json() const;
  nlohmann::json header;  // library, op, GPU, ... for the JSON form and the text heading

 private:
  struct Step {
    Status status;
    std::string name;
    std::string detail;
  };
  struct Case {
    std::string name;
    std::vector<Step> steps;
    nlohmann::json to_json() const;
  };
  std::vector<Case> cases_;
  int failures_ = 0;
  int passed_ = 0;
  int skipped_ = 0;
};

}  // namespace autoplugin::check
