// out_file.h: perfcounters' main's --benchmark_out file, written whole or
// not at all, also when the run is interrupted.
//
// gbench opens --benchmark_out when the run starts, truncating the old file,
// and writes each benchmark's rows as it finishes: Ctrl-C leaves a JSON file
// cut off after `"benchmarks": [`. The main instead
//
// * checks the path before any benchmark runs (an unwritable one is an
//   error then, as gbench's own check was) and gives gbench /dev/null
//   (GbenchArgs), so the old file stays as it is while the run goes on;
// * keeps what gbench's file reporters write in memory (OutFile: the
//   reporter gbench is given, directly or below the sampling run's
//   reporter) and writes it whole at the end (temporary file + rename,
//   whole_file.h);
// * on SIGINT or SIGTERM (OutFile::HandleInterrupts) writes the benchmarks
//   that finished, as complete output — a JSON file closed as gbench closes
//   it, its context carrying `perfcounters.interrupted` — or, when none
//   had finished (or the format is CSV, whose rows gbench's reporter holds
//   to the end), leaves the old file untouched; then it dies of the same
//   signal, so that the exit status says it was interrupted (130, 143).
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_OUT_FILE_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_OUT_FILE_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <streambuf>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"

namespace perfcounters::benchmark_ext_internal {

// The argv gbench's Initialize() gets: `argv` with --benchmark_out pointed at
// /dev/null when `redirect` (appended: gbench takes the last value, over
// BENCHMARK_OUT too), null-terminated.
std::vector<char*> GbenchArgs(int argc, char** argv, bool redirect);

class OutFile : public benchmark::BenchmarkReporter {
 public:
  // `inner`: the file's reporter (gbench's JSON, CSV or console reporter
  // under perfcounters' DisplayReporter); `format`: which ("json", "csv",
  // "console").
  OutFile(std::unique_ptr<benchmark::BenchmarkReporter> inner, std::string path,
          std::string format);

  // Whether `path` can be written (before the run).
  static absl::Status Check(const std::string& path);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // From now on SIGINT and SIGTERM write the finished benchmarks (or keep
  // the old file) and end the process with the signal.
  void HandleInterrupts();

  // Writes the file after the run: false after printing why not. Nothing
  // is written when gbench reported nothing (no benchmark matched, or
  // --benchmark_list_tests).
  bool Write();

 private:
  // What gbench's reporters write to the file's stream, kept here; each
  // flush (gbench flushes after the context and after each benchmark's
  // rows) marks the end of complete output.
  class Capture : public std::streambuf {
   public:
    std::mutex mu;
    std::string text;      // guarded by mu
    size_t complete = 0;   // guarded by mu: text[0, complete) is whole
    int finished = 0;      // guarded by mu: benchmarks in that part
    int reported = 0;      // guarded by mu: benchmarks reported so far
    bool written = false;  // guarded by mu: the file has been written

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;
  };

  // The writer thread's work on `signal` (it owns what it uses: it may
  // wake while the process exits, after this object is gone).
  static void OnInterrupt(Capture& capture, const std::string& path,
                          const std::string& format, int signal);

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  const std::string path_;
  const std::string format_;
  std::shared_ptr<Capture> capture_;
  std::string last_name_;  // the benchmark reported last
};

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_OUT_FILE_H_
