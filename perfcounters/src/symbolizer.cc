// symbolizer.cc: Symbolizer over elfutils' libdwfl/libdw (when built with
// it), the same walk as elfutils' own `addr2line -f -i`: the innermost
// function-like scope at the address names the first frame (its line from
// the line table), then every inlined_subroutine on the way out of the
// scope chain adds its caller with the call's file and line.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "dwarf_names.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/symbols.h"

#if PERFCOUNTERS_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

namespace perfcounters {
namespace {

using internal::Demangle;

// Kernel addresses (x86-64 and arm64 both put the kernel in the top half).
bool IsKernelAddress(uint64_t a) { return (a >> 63) != 0; }

// One line of /proc/self/maps.
struct Mapping {
  uint64_t start = 0, end = 0;
  // The file offset of `start`.
  uint64_t file_offset = 0;
  // The path, "[stack]", "[heap]", "[vdso]", ...; empty for anonymous
  // memory.
  std::string name;
};

// This process's mappings, by address.
std::vector<Mapping> ReadMappings() {
  std::vector<Mapping> out;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    Mapping m;
    char perms[8] = {};
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    int name_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %llu %n", &start,
                    &end, perms, &offset, &inode, &name_at) < 5) {
      continue;
    }
    m.start = start;
    m.end = end;
    m.file_offset = offset;
    if (name_at > 0 && static_cast<size_t>(name_at) < line.size()) {
      m.name = line.substr(name_at);
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const Mapping& a, const Mapping& b) {
    return a.start < b.start;
  });
  return out;
}

// The mapping that holds `a`, or nullptr.
const Mapping* MappingAt(const std::vector<Mapping>& maps, uint64_t a) {
  auto after = std::upper_bound(
      maps.begin(), maps.end(), a,
      [](uint64_t v, const Mapping& m) { return v < m.start; });
  if (after == maps.begin()) return nullptr;
  const Mapping& m = *std::prev(after);
  return a < m.end ? &m : nullptr;
}

// A mapping no file backs, by its name in maps: "[stack]", "[heap]",
// "[vdso]" as they are, anonymous memory "[anon]".
bool IsPseudoMapping(const Mapping& m) {
  return m.name.empty() || m.name.front() == '[';
}
std::string PseudoModule(const Mapping& m) {
  return m.name.empty() ? std::string("[anon]") : m.name;
}

#if PERFCOUNTERS_HAVE_LIBDW

char* g_debuginfo_path = nullptr;

const Dwfl_Callbacks kProcessCallbacks = {dwfl_linux_proc_find_elf,
                                          dwfl_standard_find_debuginfo, nullptr,
                                          &g_debuginfo_path};
const Dwfl_Callbacks kFileCallbacks = {
    dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
    dwfl_offline_section_address, &g_debuginfo_path};

std::optional<std::string> SymbolName(Dwfl_Module* mod, Dwarf_Addr addr,
                                      Dwarf_Addr* start = nullptr);

bool IsFunctionScope(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
         tag == DW_TAG_entry_point;
}

// The function-like scopes of one compilation unit, read once: every
// subprogram, inlined_subroutine and entry_point with code, its pc ranges,
// the nearest enclosing one (parent) and the ones it encloses (children).
// Looking an address up then descends from the top-level function that
// covers it, instead of walking the CU's whole DIE tree (dwarf_getscopes)
// for every address.
struct ScopeIndex {
  struct Node {
    Dwarf_Die die;
    int parent = -1;
    std::vector<std::pair<Dwarf_Addr, Dwarf_Addr>> ranges;
    std::vector<int> children;
    bool Covers(Dwarf_Addr pc) const {
      for (const auto& [lo, hi] : ranges) {
        if (pc >= lo && pc < hi) return true;
      }
      return false;
    }
  };
  std::vector<Node> nodes;
  std::vector<int> top;
  // Out-of-line subprograms by their function's identity (OriginOffset):
  // where an inlined copy finds the symbol of its function.
  absl::flat_hash_map<Dwarf_Off, int> out_of_line;

  void Walk(Dwarf_Die* die, int parent) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
      int here = parent;
      if (IsFunctionScope(dwarf_tag(&child))) {
        Node n;
        n.die = child;
        n.parent = parent;
        Dwarf_Addr base = 0, lo = 0, hi = 0;
        ptrdiff_t it = 0;
        while ((it = dwarf_ranges(&child, it, &base, &lo, &hi)) > 0) {
          n.ranges.emplace_back(lo, hi);
        }
        if (!n.ranges.empty()) {
          here = static_cast<int>(nodes.size());
          if (dwarf_tag(&child) == DW_TAG_subprogram) {
            out_of_line.try_emplace(internal::OriginOffset(&child), here);
          }
          nodes.push_back(std::move(n));
          (parent < 0 ? top : nodes[parent].children).push_back(here);
        }
      }
      Walk(&child, here);
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  // The innermost node covering pc, or -1.
  int Innermost(Dwarf_Addr pc) const {
    int found = -1;
    const std::vector<int>* level = &top;
    while (true) {
      int next = -1;
      for (int i : *level) {
        if (nodes[i].Covers(pc)) {
          next = i;
          break;
        }
      }
      if (next < 0) return found;
      found = next;
      level = &nodes[next].children;
    }
  }
};

// What DwarfFrames reads once and keeps: per compilation unit its scopes,
// per module the pc ranges of its compilation units, sorted by address.
struct DwarfIndexes {
  struct CuRange {
    Dwarf_Addr low = 0, high = 0;
    Dwarf_Die* cu = nullptr;
    Dwarf_Addr bias = 0;
  };
  absl::flat_hash_map<std::pair<Dwfl_Module*, Dwarf_Off>,
                      std::unique_ptr<ScopeIndex>>
      scopes;
  absl::flat_hash_map<Dwfl_Module*, std::vector<CuRange>> cu_ranges;
  // Function names by scope DIE (FunctionName).
  absl::flat_hash_map<std::pair<Dwfl_Module*, Dwarf_Off>, std::string> names;
  void clear() {
    scopes.clear();
    cu_ranges.clear();
    names.clear();
  }
};

// The name of the function of scope `node`, one for every frame of it: an
// out-of-line frame, the caller of an inlined frame and an inlined copy
// all read the same. The linkage name demangled; without one (GCC writes
// none for functions of internal linkage) the ELF symbol of the function's
// out-of-line code (this scope's, or another instance's in the same
// compilation unit), which binutils' addr2line prefers, without GCC's
// clone suffixes; else the name qualified from the DWARF scopes.
const std::string& FunctionName(Dwfl_Module* mod, const ScopeIndex& index,
                                int node, Dwarf_Addr bias,
                                DwarfIndexes* indexes) {
  Dwarf_Die die = index.nodes[node].die;
  auto [it, inserted] =
      indexes->names.try_emplace({mod, dwarf_dieoffset(&die)});
  if (!inserted) return it->second;
  std::optional<std::string> name;
  if (internal::LinkageName(&die) == nullptr) {
    if (dwarf_tag(&die) == DW_TAG_subprogram) {
      name = internal::SymbolAtEntry(mod, &die, bias);
    }
    auto copy = index.out_of_line.find(internal::OriginOffset(&die));
    if (!name && copy != index.out_of_line.end()) {
      Dwarf_Die other = index.nodes[copy->second].die;
      name = internal::SymbolAtEntry(mod, &other, bias);
    }
  }
  it->second = name ? *std::move(name) : internal::DwarfFunctionName(&die);
  return it->second;
}

// The compilation unit covering `addr`, and its module's bias, from the
// CUs' own DW_AT_low_pc/high_pc/ranges, read once per module. Not
// dwfl_module_addrdie: it finds a CU through .debug_aranges, which clang
// does not emit (unless -gdwarf-aranges), and takes an address in a gap
// between the aranges for the CU before the gap, so in a binary where only
// GCC's CUs have aranges it names clang's code from the wrong CU.
Dwarf_Die* CuAt(Dwfl_Module* mod, Dwarf_Addr addr, Dwarf_Addr* bias,
                DwarfIndexes* indexes) {
  auto [it, inserted] = indexes->cu_ranges.try_emplace(mod);
  std::vector<DwarfIndexes::CuRange>& ranges = it->second;
  if (inserted) {
    Dwarf_Die* cu = nullptr;
    Dwarf_Addr cu_bias = 0;
    while ((cu = dwfl_module_nextcu(mod, cu, &cu_bias)) != nullptr) {
      Dwarf_Addr base = 0, low = 0, high = 0;
      ptrdiff_t pos = 0;
      while ((pos = dwarf_ranges(cu, pos, &base, &low, &high)) > 0) {
        if (low < high) ranges.push_back({low, high, cu, cu_bias});
      }
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const DwarfIndexes::CuRange& a,
                 const DwarfIndexes::CuRange& b) { return a.low < b.low; });
  }
  if (ranges.empty()) return nullptr;
  // Every CU of a module has the module's bias.
  const Dwarf_Addr pc = addr - ranges.front().bias;
  auto after = std::upper_bound(
      ranges.begin(), ranges.end(), pc,
      [](Dwarf_Addr v, const DwarfIndexes::CuRange& r) { return v < r.low; });
  if (after == ranges.begin()) return nullptr;
  const DwarfIndexes::CuRange& r = *std::prev(after);
  if (pc >= r.high) return nullptr;
  *bias = r.bias;
  return r.cu;
}

// The frames from debug info at `addr`; empty when no CU or no function
// scope covers it. Names as `addr2line -f -i` gives them: the innermost
// frame's line from the line table, each inlined call's caller with the
// call's file and line.
std::vector<SourceFrame> DwarfFrames(Dwfl_Module* mod, Dwarf_Addr addr,
                                     DwarfIndexes* indexes) {
  std::vector<SourceFrame> frames;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = CuAt(mod, addr, &bias, indexes);
  if (cu == nullptr) return frames;
  std::unique_ptr<ScopeIndex>& index =
      indexes->scopes[{mod, dwarf_dieoffset(cu)}];
  if (index == nullptr) {
    index = std::make_unique<ScopeIndex>();
    index->Walk(cu, -1);
  }
  int n = index->Innermost(addr - bias);
  if (n < 0) return frames;
  ScopeIndex::Node* node = &index->nodes[n];
  SourceFrame inner;
  inner.inlined = dwarf_tag(&node->die) == DW_TAG_inlined_subroutine;
  inner.function = FunctionName(mod, *index, n, bias, indexes);
  // The CU's own line table (dwfl_module_getsrc would look the CU up by
  // address again, through the aranges).
  if (Dwarf_Line* line = dwarf_getsrc_die(cu, addr - bias); line != nullptr) {
    int lineno = 0;
    const char* file = dwarf_linesrc(line, nullptr, nullptr);
    if (file != nullptr) inner.file = file;
    if (dwarf_lineno(line, &lineno) == 0) inner.line = lineno;
  }
  frames.push_back(std::move(inner));
  Dwarf_Files* files = nullptr;
  if (dwarf_getsrcfiles(cu, &files, nullptr) != 0) files = nullptr;
  while (dwarf_tag(&node->die) == DW_TAG_inlined_subroutine &&
         node->parent >= 0) {
    ScopeIndex::Node* parent = &index->nodes[node->parent];
    SourceFrame caller;
    caller.inlined = dwarf_tag(&parent->die) == DW_TAG_inlined_subroutine;
    caller.function = FunctionName(mod, *index, node->parent, bias, indexes);
    Dwarf_Attribute attr;
    Dwarf_Word v = 0;
    if (files != nullptr &&
        dwarf_formudata(dwarf_attr(&node->die, DW_AT_call_file, &attr), &v) ==
            0) {
      const char* f = dwarf_filesrc(files, v, nullptr, nullptr);
      if (f != nullptr) caller.file = f;
    }
    if (dwarf_formudata(dwarf_attr(&node->die, DW_AT_call_line, &attr), &v) ==
        0) {
      caller.line = static_cast<int>(v);
    }
    frames.push_back(std::move(caller));
    node = parent;
  }
  return frames;
}

// The ELF symbol that covers `addr` (its size includes it), demangled;
// *start is where it starts.
std::optional<std::string> SymbolName(Dwfl_Module* mod, Dwarf_Addr addr,
                                      Dwarf_Addr* start) {
  GElf_Off offset = 0;
  GElf_Sym sym;
  const char* name =
      dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr);
  if (name == nullptr || offset >= sym.st_size) return std::nullopt;
  if (start != nullptr) *start = addr - offset;
  return internal::WithoutCloneSuffix(Demangle(name));
}

#endif  // PERFCOUNTERS_HAVE_LIBDW

}  // namespace

struct Symbolizer::Impl {
  bool process = false;
  // ForFile: where libdwfl placed the file (added to its own addresses).
  uint64_t file_bias = 0;
  absl::flat_hash_map<uint64_t, Location> cache;
  // ForThisProcess: /proc/self/maps, re-read when an address falls outside
  // every mapping (a library loaded since, a new thread's stack).
  std::vector<Mapping> maps;

  // The mapping of `address` in this process (nullptr: none holds it).
  const Mapping* ProcessMapping(uint64_t address) {
    const Mapping* m = MappingAt(maps, address);
    if (m == nullptr) {
      maps = ReadMappings();
      m = MappingAt(maps, address);
#if PERFCOUNTERS_HAVE_LIBDW
      if (m != nullptr && !IsPseudoMapping(*m)) (void)Report();
#endif
    }
    return m;
  }
#if PERFCOUNTERS_HAVE_LIBDW
  Dwfl* dwfl = nullptr;
  // Per compilation unit and per module, read at their first address.
  DwarfIndexes indexes;
  ~Impl() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
  absl::Status Report() {
    indexes.clear();  // modules may go away (and their memory be reused)
    dwfl_report_begin(dwfl);
    if (dwfl_linux_proc_report(dwfl, getpid()) != 0) {
      return absl::InternalError(
          absl::StrCat("reading this process's mappings (/proc/self/maps): ",
                       dwfl_errmsg(-1)));
    }
    dwfl_report_end(dwfl, nullptr, nullptr);
    return absl::OkStatus();
  }
  // Names `address` from the module libdwfl has there; leaves `loc` alone
  // when none covers it (libdwfl's lookup may answer the nearest module for
  // an address beyond every module: its own bounds are checked).
  void Resolve(uint64_t address, Location* loc) {
    Dwfl_Module* mod = dwfl_addrmodule(dwfl, address);
    Dwarf_Addr start = 0, end = 0;
    const char* mainfile = nullptr;
    const char* name =
        mod == nullptr ? nullptr
                       : dwfl_module_info(mod, nullptr, &start, &end, nullptr,
                                          nullptr, &mainfile, nullptr);
    if (mod == nullptr || address < start || address >= end) return;
    loc->module = mainfile != nullptr ? mainfile : (name ? name : "");
    Dwarf_Addr bias = 0;
    if (dwfl_module_getelf(mod, &bias) != nullptr) {
      loc->offset = address - bias;
    }
    std::vector<SourceFrame> frames = DwarfFrames(mod, address, &indexes);
    if (!frames.empty()) {
      loc->frames = std::move(frames);
      loc->from_debug_info = true;
      return;
    }
    if (std::optional<std::string> sym = SymbolName(mod, address)) {
      loc->frames = {SourceFrame{*sym, "", 0, false}};
    }
  }
#endif
};

bool Symbolizer::Available() { return PERFCOUNTERS_HAVE_LIBDW != 0; }

Symbolizer::Symbolizer() = default;
Symbolizer::Symbolizer(Symbolizer&&) noexcept = default;
Symbolizer& Symbolizer::operator=(Symbolizer&&) noexcept = default;
Symbolizer::~Symbolizer() = default;

absl::StatusOr<Symbolizer> Symbolizer::ForThisProcess() {
  Symbolizer s;
  s.impl_ = std::make_unique<Impl>();
  s.impl_->process = true;
  s.impl_->maps = ReadMappings();
#if PERFCOUNTERS_HAVE_LIBDW
  s.impl_->dwfl = dwfl_begin(&kProcessCallbacks);
  if (s.impl_->dwfl == nullptr) {
    return absl::InternalError(absl::StrCat("dwfl_begin: ", dwfl_errmsg(-1)));
  }
  RETURN_IF_ERROR(s.impl_->Report());
#endif
  return s;
}

absl::StatusOr<Symbolizer> Symbolizer::ForFile(const std::string& path) {
  Symbolizer s;
  s.impl_ = std::make_unique<Impl>();
  if (access(path.c_str(), R_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot read '", path, "' to symbolize it"));
  }
#if PERFCOUNTERS_HAVE_LIBDW
  s.impl_->dwfl = dwfl_begin(&kFileCallbacks);
  if (s.impl_->dwfl == nullptr) {
    return absl::InternalError(absl::StrCat("dwfl_begin: ", dwfl_errmsg(-1)));
  }
  dwfl_report_begin(s.impl_->dwfl);
  Dwfl_Module* mod =
      dwfl_report_offline(s.impl_->dwfl, path.c_str(), path.c_str(), -1);
  if (mod == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", path, "' is not an ELF file libdw can read: ", dwfl_errmsg(-1)));
  }
  dwfl_report_end(s.impl_->dwfl, nullptr, nullptr);
  // libdwfl lays a position-independent file out at an address of its
  // choosing: the file's own addresses are this far below.
  Dwarf_Addr bias = 0;
  if (dwfl_module_getelf(mod, &bias) != nullptr) s.impl_->file_bias = bias;
#endif
  return s;
}

const Location& Symbolizer::Symbolize(uint64_t address) {
  auto [it, inserted] = impl_->cache.try_emplace(address);
  Location& loc = it->second;
  if (!inserted) return loc;
  loc.offset = address;
  if (IsKernelAddress(address) && impl_->process) {
    loc.module = "[kernel]";
  } else if (impl_->process) {
    // The mapping the address lies in names its module; an address in no
    // mapping (a garbage return address) has none, never a neighbour's.
    if (const Mapping* m = impl_->ProcessMapping(address); m != nullptr) {
      const bool pseudo = IsPseudoMapping(*m);
#if PERFCOUNTERS_HAVE_LIBDW
      // libdwfl names the vdso "[vdso: PID]".
      if (!pseudo || m->name == "[vdso]") impl_->Resolve(address, &loc);
#endif
      if (pseudo) {
        loc.module = PseudoModule(*m);
      } else if (loc.module.empty()) {
        loc.module = m->name;
        loc.offset = address - m->start + m->file_offset;
      }
    }
  } else {
#if PERFCOUNTERS_HAVE_LIBDW
    impl_->Resolve(address + impl_->file_bias, &loc);
#endif
  }
  if (loc.frames.empty()) {
    loc.frames = {SourceFrame{kUnknownFunction, "", 0, false}};
  }
  return loc;
}

}  // namespace perfcounters
