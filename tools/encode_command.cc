// encode_command.cc: `perfcounters encode EVENT...`: the perf_event_attr
// each event of perf's grammar opens, printed as perf stat -vv does.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "commands.h"
#include "list_command.h"
#include "perfcounters/encode.h"
#include "perfcounters/grammar.h"

namespace perfcounters::tools {
namespace {

// Arguments of `perfcounters encode`.
struct EncodeArgs {
  std::vector<std::string> events;
  // Resolve vendor names with this libpfm4 table (e.g. "skl").
  std::string table;
};

int RunEncode(const EncodeArgs& args) {
  if (!ChooseVendorTable(args.table, "encode")) return kExitUsage;
  std::string out;
  ParseOptions options;
  options.tool_events = true;
  for (const std::string& text : args.events) {
    absl::StatusOr<std::vector<GroupSpec>> groups =
        ParseEventList(text, options);
    if (!groups.ok()) {
      std::fprintf(stderr, "perfcounters encode: %s\n",
                   std::string(groups.status().message()).c_str());
      return kExitUsage;
    }
    for (const GroupSpec& g : *groups) {
      for (const EventSpec& e : g.events) {
        absl::StrAppend(
            &out, "# ", e.label,
            e.text != e.label ? absl::StrCat(" (", e.text, ")") : "",
            g.user_group ? "  [group member]" : "",
            e.vendor_table.empty()
                ? ""
                : absl::StrCat("  [libpfm4 table ", e.vendor_table, "]"),
            "\n", EncodeAttr(e.attr));
        if (!out.empty() && out.back() != '\n') out += '\n';
      }
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

Command AddEncodeCommand(CLI::App& app) {
  auto args = std::make_shared<EncodeArgs>();
  CLI::App* enc = app.add_subcommand(
      "encode", "Print the perf_event_attr each event opens, as perf stat -vv");
  enc->add_option("EVENT", args->events, "events in perf's -e grammar")
      ->required();
  enc->add_option("--table", args->table,
                  "resolve vendor names with this libpfm4 table (e.g. skl)");
  return WhenGiven(enc, [args] { return RunEncode(*args); });
}

}  // namespace perfcounters::tools
