// The macros behind a shim whose library is opened with dlopen(3) on first use, not linked
// (SharedLibrary.swift). The shim lists the functions its adapter calls once, as X(name) items in
// TRAPPER_<LIBRARY>_FUNCTIONS(X), and makes from that list a struct with one field per function
// (TRAPPER_FIELD) and a trapper_<library>_load that fills it with dlsym (TRAPPER_LOAD). Each field
// has its function's own type, from the library's header, so Swift checks every call as it did when
// the library was linked; and it is non-null, so Swift calls it without unwrapping.
#pragma once
#include <dlfcn.h>
#include <stddef.h>

#define TRAPPER_FIELD(name) __typeof__(&name) _Nonnull name;

// In trapper_<library>_load(void *library, struct trapper_<library> *api): returns the name of the
// first function the library lacks.
#define TRAPPER_LOAD(name) \
    if (!(api->name = (__typeof__(&name))dlsym(library, #name))) return #name;
