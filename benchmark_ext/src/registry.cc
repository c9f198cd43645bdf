// registry.cc: the one registry of benchmark_ext's process-wide state.
#include "registry.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perfcounters::benchmark_ext_internal {

Registry& Registry::Get() {
  static Registry* const registry = new Registry();
  return *registry;
}

void Registry::SetConfig(std::shared_ptr<const Config> config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = std::move(config);
  configured_ = true;
}

std::shared_ptr<const Config> Registry::config() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

bool Registry::configured() const {
  std::lock_guard<std::mutex> lock(mu_);
  return configured_;
}

void Registry::SetEnvError(absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  env_error_ = std::move(status);
}

absl::Status Registry::env_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return env_error_;
}

bool Registry::FirstTime(absl::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  return warned_.insert(std::string(key)).second;
}

void Registry::MarkNotCounted() {
  std::lock_guard<std::mutex> lock(mu_);
  any_not_counted_ = true;
}

bool Registry::any_not_counted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return any_not_counted_;
}

void Registry::AddNotes(RunNotes notes) {
  std::lock_guard<std::mutex> lock(mu_);
  // A bound on what a program that never reports (its own main) keeps.
  if (notes_.size() >= 10000) notes_.erase(notes_.begin());
  notes_.push_back(std::move(notes));
}

std::vector<RunNotes> Registry::TakeNotes() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RunNotes> out;
  out.swap(notes_);
  return out;
}

void WarnOnce(absl::string_view key, absl::string_view message) {
  if (!Registry::Get().FirstTime(key)) return;
  std::fprintf(stderr, "perfcounters: warning: %.*s\n",
               static_cast<int>(message.size()), message.data());
}

}  // namespace perfcounters::benchmark_ext_internal
