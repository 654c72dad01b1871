// lazy_library.h — a shared library opened when a command first needs it, not when fathom
// starts, and a table of its functions looked up by name.
//
// libpq, libcurl and libzmq (with their own dependencies: Kerberos, LDAP, GnuTLS, OpenPGM...)
// are most of the libraries fathom would otherwise load at every start; most commands never
// use them. A table is a struct of function pointers typed from the library's own header (so
// a call through it is checked like a direct call), declared with FATHOM_LIBRARY_MEMBER and
// loaded once by the function FATHOM_LIBRARY_LOADER defines.
//
// Contract: OpenLibrary returns the same handle for the same soname (dlopen counts them); a
// failure names the library, the Debian package that provides it and what needed it.
// Threading: any thread; a loader keeps its table in a function-local static.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

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

// The table `loaded` holds; when it holds an error instead, prints it and ends the program
// (exit status 127, a shell's for a command it cannot run): for code that cannot go on without
// the library.
template <typename Table>
const Table& LoadedOrExit(const Result<const Table*>& loaded) {
  if (!loaded.ok()) {
    std::fprintf(stderr, "fathom: %s\n", loaded.status().message().c_str());
    std::_Exit(127);
  }
  return *loaded.value();
}

}  // namespace fathom

// Declares `decltype(&::f) f` for each f of a table's list: LIST(FATHOM_LIBRARY_MEMBER).
#define FATHOM_LIBRARY_MEMBER(f) decltype(&::f) f = nullptr;
// Fills each member of `table` from `handle`, returning the first failure.
#define FATHOM_LIBRARY_BIND(f)                                                         \
  {                                                                                    \
    FATHOM_ASSIGN_OR_RETURN(void* fn, ::fathom::LibraryFunction(handle, name, #f));    \
    table.f = reinterpret_cast<decltype(&::f)>(fn);                                    \
  }
// Defines `Result<const TABLE*> LOADER()`: opens the library NAME (a LibraryName) at the first
// call, fills the members of TABLE that LIST names, and gives the same table, or the same
// error, at every call.
#define FATHOM_LIBRARY_LOADER(TABLE, LIST, NAME, LOADER)                               \
  ::fathom::Result<const TABLE*> LOADER() {                                            \
    static const ::fathom::Result<TABLE> loaded = []() -> ::fathom::Result<TABLE> {    \
      const ::fathom::LibraryName& name = NAME;                                        \
      FATHOM_ASSIGN_OR_RETURN(void* handle, ::fathom::OpenLibrary(name));              \
      TABLE table;                                                                     \
      LIST(FATHOM_LIBRARY_BIND)                                                        \
      return table;                                                                    \
    }();                                                                               \
    if (!loaded.ok()) return loaded.status();                                          \
    return &loaded.value();                                                            \
  }
