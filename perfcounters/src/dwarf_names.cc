// dwarf_names.cc: function names from DWARF and ELF symbols (see
// dwarf_names.h).
#include "dwarf_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perfcounters/symbols.h"

#if PERFCOUNTERS_HAVE_LIBDW
#include <dwarf.h>
#endif

namespace perfcounters::internal {

std::string Demangle(const char* name) {
  if (name == nullptr) return kUnknownFunction;
  if (name[0] == '_' && name[1] == 'Z') {
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status == 0 && out != nullptr) {
      std::string s(out);
      std::free(out);
      return s;
    }
  }
  return name;
}

std::string WithoutCloneSuffix(std::string name) {
  static constexpr char kClone[] = " [clone ";
  while (!name.empty() && name.back() == ']') {
    const size_t at = name.rfind(kClone);
    if (at == std::string::npos) break;
    name.erase(at);
  }
  return name;
}

#if PERFCOUNTERS_HAVE_LIBDW
namespace {

// Follows `attr` references (abstract_origin, specification) from `die`,
// at most a few steps.
Dwarf_Die Follow(Dwarf_Die die, int attr_name) {
  for (int i = 0; i < 8; ++i) {
    Dwarf_Attribute attr;
    Dwarf_Die next;
    if (dwarf_attr(&die, attr_name, &attr) == nullptr ||
        dwarf_formref_die(&attr, &next) == nullptr) {
      break;
    }
    die = next;
  }
  return die;
}

const char* Name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

// The demangler's spelling of a DWARF base type.
std::string BaseTypeName(const char* name) {
  static constexpr const char* kNames[][2] = {
      {"long unsigned int", "unsigned long"},
      {"long int", "long"},
      {"short int", "short"},
      {"short unsigned int", "unsigned short"},
      {"long long int", "long long"},
      {"long long unsigned int", "unsigned long long"},
      {"_Bool", "bool"},
      {"__int128 unsigned", "unsigned __int128"},
  };
  for (const auto& [dwarf, demangled] : kNames) {
    if (std::strcmp(name, dwarf) == 0) return demangled;
  }
  return name;
}

// "ns::Class::" for the namespaces and classes around `die`; false where
// one cannot be named.
bool ScopePrefix(Dwarf_Die* die, std::string* out) {
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes_die(die, &scopes);
  bool ok = n > 0;
  std::vector<std::string> parts;
  for (int i = n - 1; ok && i >= 1; --i) {
    const int tag = dwarf_tag(&scopes[i]);
    const char* name = Name(&scopes[i]);
    if (tag == DW_TAG_namespace) {
      parts.push_back(name != nullptr ? name : "(anonymous namespace)");
    } else if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
               tag == DW_TAG_union_type) {
      if (name == nullptr) ok = false;
      if (ok) parts.push_back(name);
    } else if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit) {
      ok = false;  // a function's local class, a lexical block
    }
  }
  std::free(scopes);
  if (!ok) return false;
  for (const std::string& p : parts) *out += p + "::";
  return true;
}

// A type as the demangler writes it ("char const*", "ns::State&"); false
// where this writer does not know how.
bool TypeName(Dwarf_Die* die, int depth, std::string* out) {
  if (depth > 16) return false;
  Dwarf_Attribute attr;
  Dwarf_Die inner_die;
  auto inner = [&](std::string* s) {
    if (dwarf_attr_integrate(die, DW_AT_type, &attr) == nullptr) {
      *s = "void";
      return true;
    }
    return dwarf_formref_die(&attr, &inner_die) != nullptr &&
           TypeName(&inner_die, depth + 1, s);
  };
  const char* name = Name(die);
  std::string s;
  switch (dwarf_tag(die)) {
    case DW_TAG_base_type:
      if (name == nullptr) return false;
      *out = BaseTypeName(name);
      return true;
    case DW_TAG_unspecified_type:
      if (name == nullptr) return false;
      *out = std::strcmp(name, "decltype(nullptr)") == 0 ? "decltype(nullptr)"
                                                         : name;
      return true;
    case DW_TAG_pointer_type:
      if (!inner(&s)) return false;
      *out = s + "*";
      return true;
    case DW_TAG_reference_type:
      if (!inner(&s)) return false;
      *out = s + "&";
      return true;
    case DW_TAG_rvalue_reference_type:
      if (!inner(&s)) return false;
      *out = s + "&&";
      return true;
    case DW_TAG_const_type:
      if (!inner(&s)) return false;
      *out = s + " const";
      return true;
    case DW_TAG_volatile_type:
      if (!inner(&s)) return false;
      *out = s + " volatile";
      return true;
    case DW_TAG_typedef:  // mangled names have the type itself
      return inner(out);
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
    case DW_TAG_enumeration_type: {
      if (name == nullptr) return false;
      Dwarf_Die decl = Follow(*die, DW_AT_specification);
      std::string prefix;
      if (!ScopePrefix(&decl, &prefix)) return false;
      *out = prefix + name;
      return true;
    }
    default:
      return false;
  }
}

// "(unsigned long, char const*)" from `die`'s formal parameters (this left
// out); false where a type cannot be written.
bool Parameters(Dwarf_Die* die, std::string* out) {
  std::vector<std::string> params;
  Dwarf_Die child;
  if (dwarf_child(die, &child) == 0) {
    do {
      const int tag = dwarf_tag(&child);
      if (tag == DW_TAG_unspecified_parameters) {
        params.push_back("...");
        continue;
      }
      if (tag != DW_TAG_formal_parameter) continue;
      Dwarf_Attribute attr;
      bool artificial = false;
      if (dwarf_formflag(dwarf_attr_integrate(&child, DW_AT_artificial, &attr),
                         &artificial) == 0 &&
          artificial) {
        continue;
      }
      Dwarf_Die type;
      std::string s;
      if (dwarf_attr_integrate(&child, DW_AT_type, &attr) == nullptr ||
          dwarf_formref_die(&attr, &type) == nullptr ||
          !TypeName(&type, 0, &s)) {
        return false;
      }
      params.push_back(std::move(s));
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  // StrCat, not "(" + string: GCC 12 at -O3 (the arm64 Release tree)
  // warns a false -Wrestrict on that operator+.
  *out = absl::StrCat("(", absl::StrJoin(params, ", "), ")");
  return true;
}

}  // namespace

const char* LinkageName(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name =
      dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (name == nullptr) {
    name = dwarf_formstring(
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  }
  return name;
}

Dwarf_Off OriginOffset(Dwarf_Die* die) {
  Dwarf_Die origin = Follow(*die, DW_AT_abstract_origin);
  return dwarf_dieoffset(&origin);
}

std::optional<std::string> SymbolAtEntry(Dwfl_Module* mod, Dwarf_Die* die,
                                         Dwarf_Addr bias) {
  // A function split into hot and cold parts has ranges, not low_pc: the
  // symbol may start any of them.
  Dwarf_Addr base = 0, low = 0, high = 0;
  ptrdiff_t it = 0;
  while ((it = dwarf_ranges(die, it, &base, &low, &high)) > 0) {
    GElf_Off offset = 0;
    GElf_Sym sym;
    const char* name = dwfl_module_addrinfo(mod, low + bias, &offset, &sym,
                                            nullptr, nullptr, nullptr);
    if (name != nullptr && offset == 0) {
      return WithoutCloneSuffix(Demangle(name));
    }
  }
  return std::nullopt;
}

std::string DwarfFunctionName(Dwarf_Die* die) {
  if (const char* linkage = LinkageName(die)) return Demangle(linkage);
  // The abstract function (parameters), and its declaration (scopes).
  Dwarf_Die origin = Follow(*die, DW_AT_abstract_origin);
  Dwarf_Die decl = Follow(origin, DW_AT_specification);
  const char* name = Name(&origin);
  if (name == nullptr) return kUnknownFunction;
  std::string prefix, params;
  if (!ScopePrefix(&decl, &prefix)) prefix.clear();
  if (!Parameters(&origin, &params)) params.clear();
  return prefix + name + params;
}

#endif  // PERFCOUNTERS_HAVE_LIBDW

}  // namespace perfcounters::internal
