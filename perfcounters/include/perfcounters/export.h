// export.h: which of the library's symbols a shared build exports.
//
// The library compiles with hidden visibility by default
// (-fvisibility=hidden, -fvisibility-inlines-hidden): a shared
// libperfcounters.so exports only what the public headers, and the
// in-tree internal target's headers, declare between PERFCOUNTERS_EXPORT_BEGIN
// and PERFCOUNTERS_EXPORT_END. Helpers declared only under perfcounters/src/
// stay inside the library. A static archive links as before: hidden symbols
// still resolve within one link.
#ifndef PERFCOUNTERS_EXPORT_H_
#define PERFCOUNTERS_EXPORT_H_

#define PERFCOUNTERS_EXPORT_BEGIN _Pragma("GCC visibility push(default)")
#define PERFCOUNTERS_EXPORT_END _Pragma("GCC visibility pop")

#endif  // PERFCOUNTERS_EXPORT_H_
