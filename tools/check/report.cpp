#include "report.h"

#include <algorithm>
#include <ostream>

namespace autoplugin::check {
namespace {

const char* label(Report::Status status) {
  switch (status) {
    case Report::Status::Passed:
      return "ok  ";
    case Report::Status::Failed:
      return "FAIL";
    case Report::Status::Skipped:
      return "skip";
    case Report::Status::Info:
      return "    ";
  }
  return "?";
}

const char* json_label(Report::Status status) {
  switch (status) {
    case Report::Status::Passed:
      return "passed";
    case Report::Status::Failed:
      return "failed";
    case Report::Status::Skipped:
      return "skipped";
    case Report::Status::Info:
      return "info";
  }
  return "?";
}

Report::Status status_of(const std::string& label) {
  for (auto status : {Report::Status::Passed, Report::Status::Failed, Report::Status::Skipped}) {
    if (label == json_label(status)) return status;
  }
  return Report::Status::Info;
}

nlohmann::json case_json(const std::string& name, const nlohmann::json& steps) {
  return {{"name", name}, {"steps", steps}};
}

}  // namespace

void Report::begin_case(std::string name) { cases_.push_back({std::move(name), {}}); }

void Report::add(Status status, std::string step, std::string detail) {
  if (cases_.empty()) begin_case("");
  if (status == Status::Failed) ++failures_;
  if (status == Status::Passed) ++passed_;
  if (status == Status::Skipped) ++skipped_;
  cases_.back().steps.push_back({status, std::move(step), std::move(detail)});
}

void Report::insert(std::size_t at, Status status, std::string step, std::string detail) {
  add(status, std::move(step), std::move(detail));
  auto& steps = cases_.back().steps;
  std::rotate(steps.begin() + static_cast<std::ptrdiff_t>(std::min(at, steps.size() - 1)),
              steps.end() - 1, steps.end());
}

void Report::print(std::ostream& out) const {
  for (const auto& [key, value] : header.items()) {
    out << key << ": " << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
  }
  for (const Case& c : cases_) {
    if (!c.name.empty()) out << "\ncase " << c.name << "\n";
    for (const Step& s : c.steps) {
      out << "  " << label(s.status) << " " << s.name;
      if (!s.detail.empty()) {
        // Multi-line details stay indented under their step.
        std::string detail = s.detail;
        for (std::size_t at = detail.find('\n'); at != std::string::npos;
             at = detail.find('\n', at + 8)) {
          detail.replace(at, 1, "\n         ");
        }
        out << ": " << detail;
      }
      out << "\n";
    }
  }
  out << "\n" << passed_ << " passed, " << failures_ << " failed, " << skipped_ << " skipped\n";
}

nlohmann::json Report::Case::to_json() const {
  nlohmann::json json_steps = nlohmann::json::array();
  for (const Step& s : steps) {
    json_steps.push_back(
        {{"step", s.name}, {"status", json_label(s.status)}, {"detail", s.detail}});
  }
  return case_json(name, json_steps);
}

nlohmann::json Report::last_case_json() const {
  return cases_.empty() ? case_json("", nlohmann::json::array()) : cases_.back().to_json();
}

void Report::append_case(const nlohmann::json& c) {
  begin_case(c.at("name").get<std::string>());
  for (const auto& s : c.at("steps")) {
    add(status_of(s.at("status").get<std::string>()), s.at("step").get<std::string>(),
        s.at("detail").get<std::string>());
  }
}

void Report::expect_error(const std::string& text) {
  if (cases_.empty()) begin_case("");
  bool matched = false;
  for (Step& s : cases_.back().steps) {
    if (s.status != Status::Failed || s.detail.find(text) == std::string::npos) continue;
    s.status = Status::Passed;
    s.detail = "failed as expected: " + s.detail;
    --failures_;
    ++passed_;
    matched = true;
  }
  if (!matched) {
    fail("expect_error", "the case must fail with \"" + text + "\", but no failed step says so");
  }
}

nlohmann::json Report::to_json() const {
  nlohmann::json result = header;
  result["cases"] = nlohmann::json::array();
  for (const Case& c : cases_) result["cases"].push_back(c.to_json());
  result["passed"] = passed_;
  result["failed"] = failures_;
  result["skipped"] = skipped_;
  return result;
}

}  // namespace autoplugin::check
