// list_command.h: what `list` (list_command.cc, with its vendor-event part
// in vendor_list.cc) and `encode` (encode_command.cc) share.
#ifndef PERFCOUNTERS_TOOLS_LIST_COMMAND_H_
#define PERFCOUNTERS_TOOLS_LIST_COMMAND_H_

#include <string>

namespace perfcounters::tools {

// Arguments of `perfcounters list`.
struct ListArgs {
  std::string pattern;
  bool json = false;
  bool tracepoints = false;        // list tracepoints (from tracefs)
  bool check_tracepoints = false;  // and open each (slow: tens of ms each)
  // Only the vendor events (libpfm4's table for this CPU).
  bool vendor = false;
  // Use this libpfm4 table instead of the detected one (e.g. "icl").
  std::string table;
};

// `list`'s PATTERN against one text: a case-insensitive substring, or a glob
// with * ? [ ] (FNM_CASEFOLD); an empty pattern matches everything.
bool MatchesListPattern(const std::string& text, const std::string& pattern);

// vendor_list.cc: the vendor events of `list` (a text section after perf's
// events, or alone, also as JSON, when `section` is false), and --table for
// list/encode (false after printing why the table cannot be used).
int PrintVendorEvents(const ListArgs& args, bool section);
bool ChooseVendorTable(const std::string& table, const char* command);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_LIST_COMMAND_H_
