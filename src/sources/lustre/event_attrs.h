// event_attrs.h — the JSON members a Lustre changelog record adds to its events.
//
// AppendEventAttrs writes `{"fid":"[...]","pfid":"[...]","mdt":N,"recno":N,"type":"CREAT",
// "flags":N[,"uid":N,"gid":N][,"jobid":"..."][,"nid":"..."][,"name":"..."]}` (see
// include/fathom/event.h for Event::attrs). "pfid" is left out when zero; uid/gid, jobid and
// nid when the record does not carry them; "name" unless `name` is given. Strings are
// JSON-escaped. Runs once per event on the changelog reader's hot path: one pass over a
// stack buffer, one allocation for the result. Pure function, any thread.
#pragma once

#include <string>

#include "lustre/changelog_record.h"

namespace fathom::lustre_source {

void AppendEventAttrs(const lustre::ChangelogRecord& r, const lustre::Fid& fid,
                      const lustre::Fid& pfid, int mdt, const std::string* name, std::string& out);

}  // namespace fathom::lustre_source
