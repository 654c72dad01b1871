// path_glob.h — one --include/--exclude pattern, matched against a path relative to its root.
//
// Semantics (rsync/gitignore-like):
// - A pattern without '/' (a trailing '/' aside) matches the name of any path component, at
//   any depth: `*.tmp` matches `a.tmp` and `dir/b.tmp`; `build` matches `build` and `x/build`.
// - A pattern with '/' is anchored at the root and matched against the root-relative path
//   (a leading '/' only anchors): `sub/*` matches `sub/a`, not `x/sub/a`.
// - `*` and `?` never match '/'; `**` matches anything, '/' included, and `**/` also matches
//   no directory at all (`a/**/b` matches `a/b`; in a pattern without '/', which matches one
//   name, it is `*`); `[...]` is a class (`[!...]` negated, `a-z` a
//   range); `\` quotes the next character outside a class.
// - A path matches when it or any of its ancestors matches: excluding a directory excludes
//   everything below it, and including `sub/*` includes `sub/a/b`.
// - A trailing '/' matches directories only: the path's ancestors, and the path itself when
//   the event is about a directory.
// Immutable after construction; safe to share between threads.
#pragma once

#include <string>
#include <string_view>

namespace fathom::filter_internal {

class PathGlob {
 public:
  explicit PathGlob(std::string_view pattern);

  // `relative`: the path below the root, without a leading '/' ("" is the root itself, which
  // no pattern matches); `is_dir`: whether `relative` itself is a directory.
  bool Matches(std::string_view relative, bool is_dir) const;

 private:
  std::string pattern_;  // without the leading and trailing '/'
  bool anchored_ = false;
  bool dir_only_ = false;
};

// Whether `text` matches the whole `glob` (the syntax above, without the anchoring rules).
bool GlobMatch(std::string_view glob, std::string_view text);

}  // namespace fathom::filter_internal
