// symbols.h: instruction addresses turned into functions, source lines and
// modules, and a Profile (profile.h) turned into the shares of functions
// and stacks that a person reads.
//
// `Symbolizer` resolves an address in this process (modules from
// /proc/self/maps) or in one ELF file, in-process with elfutils' libdw:
// the function's name (demangled), the functions inlined at that address
// with their call sites, the source file and line; without debug info the
// ELF symbol table's name; when nothing covers the address, "[unknown]"
// with the module and the offset — never the name of a neighbouring
// function. Results are cached per address, the debug info per module.
//
// `SummarizeProfile` attributes every sample to functions (self: the
// innermost frame, inlined functions included; inclusive: every function on
// its stack, once) and to stacks (outermost frame first); `FoldedStacks`
// writes the stacks in Brendan Gregg's folded format (`a;b;c COUNT`), which
// flamegraph.pl, inferno and speedscope read.
#ifndef PERFCOUNTERS_SYMBOLS_H_
#define PERFCOUNTERS_SYMBOLS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"
#include "perfcounters/profile.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The name of a frame nothing covers.
inline constexpr char kUnknownFunction[] = "[unknown]";

// One function at an address: the function itself, or one inlined into it.
struct SourceFrame {
  // Demangled ("ns::Parse(char const*)"), or kUnknownFunction.
  std::string function;
  // Source file and line: of the address for the innermost frame, of the
  // inlined call for its callers. Empty / 0 when the debug info has none.
  std::string file;
  int line = 0;
  // An inlined call (the next frame is its caller).
  bool inlined = false;

  friend bool operator==(const SourceFrame&, const SourceFrame&) = default;
};

// What is at one address.
struct Location {
  // The mapping the address lies in (/proc/self/maps): the mapped file
  // (absolute path), "[vdso]", "[stack]", "[heap]", "[anon]" for memory no
  // file backs; "[kernel]" for a kernel address; empty for an address in
  // no mapping (a garbage return address of a broken call chain), never
  // another module.
  std::string module;
  // The address in the module's own ELF address space: what
  // `addr2line -e MODULE` takes. The raw address outside files and the
  // vdso.
  uint64_t offset = 0;
  // Innermost first; the last frame is the out-of-line function. One frame
  // named kUnknownFunction when nothing covers the address.
  std::vector<SourceFrame> frames;
  // Whether the name came from debug info (else the symbol table, or none).
  bool from_debug_info = false;

  bool known() const {
    return !frames.empty() && frames.front().function != kUnknownFunction;
  }
};

class Symbolizer {
 public:
  // False when this library was built without elfutils' libdw: every
  // address is then kUnknownFunction (with module and offset).
  static bool Available();
  // The modules mapped into this process (re-read when an address falls
  // outside all of them, e.g. after dlopen).
  static absl::StatusOr<Symbolizer> ForThisProcess();
  // One ELF file, addresses in its own address space (as addr2line -e).
  static absl::StatusOr<Symbolizer> ForFile(const std::string& path);

  Symbolizer();
  Symbolizer(Symbolizer&&) noexcept;
  Symbolizer& operator=(Symbolizer&&) noexcept;
  ~Symbolizer();

  // What is at `address`; the reference stays valid until the next call.
  const Location& Symbolize(uint64_t address);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One function's share of a profile.
struct FunctionShare {
  std::string name;
  std::string module;
  // Of its most sampled address; empty / 0 when unknown.
  std::string file;
  int line = 0;
  // For kUnknownFunction: the most sampled offset in the module (a
  // module's addresses that no symbol covers are one entry).
  std::optional<uint64_t> offset;
  // Sampled as a function inlined into another (its inlined copies and
  // its out-of-line code, where it has both, are this one entry).
  bool inlined = false;
  // Samples with this function innermost, and (with call chains) samples
  // with it anywhere on the stack.
  uint64_t self = 0;
  uint64_t inclusive = 0;
};

// One distinct stack: frames outermost first, joined with ';'.
struct StackShare {
  std::string stack;
  uint64_t samples = 0;
};

struct ProfileSummary {
  std::string event;
  std::optional<uint64_t> period;
  std::optional<uint64_t> frequency;
  // Whether the stacks and inclusive shares are call chains: false without
  // them, and false where they were taken but broke (callchains_broken).
  bool callchains = false;
  // Samples whose call chain was taken but broke at the sampled frame: no
  // caller, or a caller no symbol covers (the kernel walks frame pointers,
  // and code built without them gives it garbage). When more than half of
  // the samples' chains broke, `callchains` is false.
  uint64_t callchains_broken = 0;
  uint64_t samples = 0;
  uint64_t lost = 0;
  // By self samples, descending, then by inclusive samples (then by name):
  // a function without self samples never comes before one with some.
  std::vector<FunctionShare> functions;
  // By samples, descending (then by stack). Without call chains each stack
  // is the innermost function alone.
  std::vector<StackShare> stacks;
};

// Symbolizes `profile` with `symbolizer`. Return addresses of call-chain
// frames are looked up one byte back (the call instruction), the sampled
// address as it is. ';' and line breaks inside a name become ':' and ' ' in
// stacks, so that the folded format stays unambiguous.
ProfileSummary SummarizeProfile(const Profile& profile, Symbolizer& symbolizer);

// The folded-stack text: one `frame;frame;frame COUNT` line per stack.
std::string FoldedStacks(const ProfileSummary& summary);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_SYMBOLS_H_
