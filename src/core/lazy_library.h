// lazy_library.h — a shared library opened when a command first needs it, not when fathom
// starts, and a table of its functions looked up by name.
//
// libpq and libcurl (with their own dependencies: Kerberos, LDAP, GnuTLS, ...) are half of the
// libraries fathom would otherwise load at every start; most commands never use them.
// A table is a struct of function pointers typed from the library's own header (so a call
// through it is checked like a direct call), filled once by LoadFunctions.
//
// Contract: OpenLibrary returns the same handle for the same soname (dlopen counts them); a
// failure names the library, the Debian package that provides it and what needed it.
// Threading: any thread; callers keep one table in a function-local static.
#pragma once

#include <dlfcn.h>

#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom {

struct LibraryName {
  const char* soname;    // e.g. "libpq.so.5"
  const char* package;   // the Debian package that installs it, e.g. "libpq5"
  const char* purpose;   // what needs it, e.g. "PostgreSQL catalogs"
};

// dlopen(soname, RTLD_NOW | RTLD_LOCAL).
Result<void*> OpenLibrary(const LibraryName& name);

// The function `symbol` of an opened library; an error names the library and the symbol (a
// library older than the one fathom was built against).
Result<void*> LibraryFunction(void* handle, const LibraryName& name, const char* symbol);

}  // namespace fathom

// Declares `decltype(&::f) f` for each f of a table's list: FATHOM_LIBRARY_MEMBERS(LIST).
#define FATHOM_LIBRARY_MEMBER(f) decltype(&::f) f = nullptr;
// Fills each member of `table` from `handle`, returning the first failure.
#define FATHOM_LIBRARY_BIND(f)                                                         \
  {                                                                                    \
    FATHOM_ASSIGN_OR_RETURN(void* fn, ::fathom::LibraryFunction(handle, name, #f));    \
    table.f = reinterpret_cast<decltype(&::f)>(fn);                                    \
  }
