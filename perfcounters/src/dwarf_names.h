// dwarf_names.h: the name of a function in DWARF debug info, the same for
// every frame of it (symbolizer.cc): demangled linkage names, ELF symbol
// names without GCC's clone suffixes, and, for a function that has neither
// (an inlined static helper), its name qualified from the DWARF scopes
// with its parameter list written as the demangler writes it.
#ifndef PERFCOUNTERS_SRC_DWARF_NAMES_H_
#define PERFCOUNTERS_SRC_DWARF_NAMES_H_

#include <optional>
#include <string>

#if PERFCOUNTERS_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

namespace perfcounters::internal {

// The demangled name of a C++ symbol; other names as they are; nullptr as
// "[unknown]".
std::string Demangle(const char* name);

// "f(int) [clone .constprop.0] [clone .isra.0]" -> "f(int)": a clone GCC
// made is the same source function.
std::string WithoutCloneSuffix(std::string name);

#if PERFCOUNTERS_HAVE_LIBDW

// The linkage name of a DIE (followed through abstract_origin and
// specification), or nullptr.
const char* LinkageName(Dwarf_Die* die);

// The DIE that is a function's identity: the end of `die`'s
// DW_AT_abstract_origin chain (an inlined or out-of-line instance points
// at the abstract function), `die` itself without one.
Dwarf_Off OriginOffset(Dwarf_Die* die);

// The ELF symbol (demangled, without clone suffixes) that starts where one
// of `die`'s pc ranges starts; nullopt without one.
std::optional<std::string> SymbolAtEntry(Dwfl_Module* mod, Dwarf_Die* die,
                                         Dwarf_Addr bias);

// The name from the debug info alone: the linkage name demangled, else the
// enclosing namespaces and classes, DW_AT_name and the parameter types
// ("ns::Helper(unsigned long, char const*)"); the name without parameters
// where a type cannot be written; "[unknown]" without a name.
std::string DwarfFunctionName(Dwarf_Die* die);

#endif  // PERFCOUNTERS_HAVE_LIBDW

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_DWARF_NAMES_H_
