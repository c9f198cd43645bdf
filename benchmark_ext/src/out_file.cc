// out_file.cc: the --benchmark_out file written whole (see out_file.h).
#include "out_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "perfcounters/internal/whole_file.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

// The write end of the pipe that the signal handler wakes the writer
// thread through (a handler may do little more than write(2)).
int g_wake = -1;

void OnSignal(int signal) {
  const unsigned char c = static_cast<unsigned char>(signal);
  const ssize_t n = ::write(g_wake, &c, 1);
  (void)n;
}

const char* SignalName(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal";
}

// The finished benchmarks' output as a complete file: gbench's JSON is
// closed as its reporter's Finalize() closes it, and says in its context
// that the run was interrupted.
std::string Completed(std::string text, const std::string& format, int signal,
                      int finished) {
  if (format != "json") return text;
  constexpr absl::string_view kHead = "{\n  \"context\": {\n";
  if (absl::StartsWith(text, kHead)) {
    text.insert(kHead.size(),
                absl::StrCat("    \"perfcounters.interrupted\": \"",
                             SignalName(signal), " after ", finished,
                             " benchmark(s) had finished; the others are "
                             "missing\",\n"));
  }
  return text + "\n  ]\n}\n";
}

}  // namespace

std::vector<char*> GbenchArgs(int argc, char** argv, bool redirect) {
  static char kDevNull[] = "--benchmark_out=/dev/null";
  std::vector<char*> args(argv, argv + argc);
  if (redirect) args.push_back(kDevNull);
  args.push_back(nullptr);
  return args;
}

OutFile::Capture::int_type OutFile::Capture::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return 0;
  std::lock_guard<std::mutex> lock(mu);
  text.push_back(traits_type::to_char_type(c));
  return c;
}

std::streamsize OutFile::Capture::xsputn(const char* s, std::streamsize n) {
  std::lock_guard<std::mutex> lock(mu);
  text.append(s, static_cast<size_t>(n));
  return n;
}

int OutFile::Capture::sync() {
  std::lock_guard<std::mutex> lock(mu);
  complete = text.size();
  finished = reported;
  return 0;
}

OutFile::OutFile(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                 std::string path, std::string format)
    : inner_(std::move(inner)),
      // gbench writes a file named "-"; whole_file.h takes "-" as stdout.
      path_(path == "-" ? "./-" : std::move(path)),
      format_(std::move(format)),
      capture_(std::make_shared<Capture>()) {}

absl::Status OutFile::Check(const std::string& path) {
  absl::Status s = internal::CheckFileWritable(path == "-" ? "./-" : path);
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat("--benchmark_out=", path, ": ", s.message(),
                                   "; no benchmark was run"));
}

bool OutFile::ReportContext(const Context& context) {
  // gbench's stream for the file (its /dev/null, given to this reporter or
  // to the sampling run's reporter above it, which writes there too) now
  // writes here.
  GetOutputStream().rdbuf(capture_.get());
  GetErrorStream().rdbuf(capture_.get());
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void OutFile::ReportRuns(const std::vector<Run>& runs) {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  inner_->ReportRuns(runs);
  // gbench reports a benchmark's repetitions and its aggregates in two
  // calls.
  if (runs.empty() || runs.front().run_name.str() == last_name_) return;
  last_name_ = runs.front().run_name.str();
  std::lock_guard<std::mutex> lock(capture_->mu);
  ++capture_->reported;
}

void OutFile::Finalize() {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  inner_->Finalize();
}

void OutFile::HandleInterrupts() {
  int fds[2];
  if (g_wake >= 0 || ::pipe2(fds, O_CLOEXEC) != 0) return;
  g_wake = fds[1];
  // The thread owns what it needs: it may wake after this object is gone
  // (a signal while the process exits).
  std::thread([read_end = fds[0], capture = capture_, path = path_,
               format = format_] {
    unsigned char c = 0;
    while (::read(read_end, &c, 1) < 0 && errno == EINTR) {
    }
    OnInterrupt(*capture, path, format, c);
  }).detach();
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction old = {};
    // An ignored signal (nohup, a background job) stays ignored.
    if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {
      continue;
    }
    struct sigaction sa = {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(signal, &sa, nullptr);
  }
}

void OutFile::OnInterrupt(Capture& capture, const std::string& path,
                          const std::string& format, int signal) {
  {
    std::lock_guard<std::mutex> lock(capture.mu);
    // gbench's CSV reporter is given every row at the end (console.h).
    if (!capture.written && capture.finished > 0 && format != "csv") {
      const absl::Status s = internal::WriteFileWhole(
          path, Completed(capture.text.substr(0, capture.complete), format,
                          signal, capture.finished));
      capture.written = true;
      if (s.ok()) {
        std::fprintf(stderr,
                     "perfcounters: interrupted (%s): %s has the %d "
                     "benchmark(s) that finished\n",
                     SignalName(signal), path.c_str(), capture.finished);
      } else {
        std::fprintf(stderr,
                     "perfcounters: interrupted (%s): --benchmark_out: %s\n",
                     SignalName(signal), std::string(s.message()).c_str());
      }
    } else if (!capture.written) {
      std::fprintf(stderr,
                   "perfcounters: interrupted (%s) %s: %s is left as it "
                   "was\n",
                   SignalName(signal),
                   format == "csv" ? "(a CSV file is written at the end)"
                                   : "before a benchmark finished",
                   path.c_str());
    }
  }
  // Die of the signal, as without this handler.
  ::signal(signal, SIG_DFL);
  ::kill(::getpid(), signal);
  ::_exit(128 + signal);
}

bool OutFile::Write() {
  std::lock_guard<std::mutex> lock(capture_->mu);
  if (capture_->written || capture_->text.empty()) return true;
  const absl::Status s = internal::WriteFileWhole(path_, capture_->text);
  capture_->written = true;
  if (!s.ok()) {
    std::fprintf(stderr, "perfcounters: error: --benchmark_out: %s\n",
                 std::string(s.message()).c_str());
  }
  return s.ok();
}

}  // namespace perfcounters::benchmark_ext_internal
