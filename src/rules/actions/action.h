// action.h — performing one delivery's action (a command or a webhook) and what the outcome
// means for the journal: success, retry (maybe after a delay), permanent failure, or an
// endpoint to disable.
//
// Contract: a DeliveryContext is one delivery of a rule: one event or a batch (ids ascending),
// the attempt number (1 for the first), and `payload_json`, the document DeliveryPayload()
// builds, which the command gets on stdin and the webhook as its body. Running an action never
// throws and never returns an error: everything that can happen is an ActionOutcome whose
// message says what happened ("exit 3", "HTTP 503", "timed out after 10 s"). Commands run
// without a shell; placeholders are replaced inside single arguments, so file names reach the
// command as exact bytes and are never interpreted. Secrets are read from their files on each
// attempt and are never part of a message.
//
// Ownership: the actions and contexts are plain values; nothing is kept between calls.
// Threading: every function may run on any thread, concurrently; RunCommandAction and
// RunWebhookAction block until the action ends (at most about its timeout).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::rules {

struct ActionOutcome {
  enum Kind {
    kSuccess,
    kRetry,      // try again later: after retry_after_ns when set, else the runner's backoff
    kPermanent,  // the delivery is dead: retrying cannot help
    kDisable,    // HTTP 410 Gone: the endpoint asks never to be called again
  } kind = kPermanent;
  std::string message;
  std::optional<int64_t> retry_after_ns;
};

// "success", "retry", "permanent", "disable".
const char* OutcomeKindName(ActionOutcome::Kind kind);

struct DeliveryContext {
  std::string delivery_id;  // the same on every attempt of one delivery
  int attempt = 1;          // 1 for the first
  std::string rule;
  std::vector<Event> events;  // the event or the batch, ids ascending
  std::string payload_json;   // DeliveryPayload(*this); built on demand when empty
  // A command action calls it with its process's pid (also its process group's id), so that
  // events its programs cause can be recognised (rules/action_processes.h).
  std::function<void(pid_t)> on_process;
};

// The JSON document an action gets:
//   {"delivery_id":"...","rule":"...","attempt":1,"events":[{"id":7,"ts_ns":...,
//    "kinds":["CREATE"],"path":"...","root":"...","source":"inotify","cookie":0,"attrs":{...}}]}
// "attrs" is the event's attrs object, present when it has members. Text is always valid UTF-8:
// a path or root that is not is written lossily (each ill-formed sequence as U+FFFD) and gets
// a companion "path_b64" / "root_b64" with its exact bytes in base64, as everywhere in fathom
// (fathom/format.h, docs/formats.md).
std::string DeliveryPayload(const DeliveryContext& context);

struct CommandAction {
  std::vector<std::string> argv;  // a template: see CheckCommandTemplate
  int64_t timeout_ns = std::chrono::nanoseconds(std::chrono::minutes(10)).count();
  std::vector<int> retry_exit_codes = {75};  // EX_TEMPFAIL
  std::optional<uid_t> run_as_uid;           // needs a runner running as root
  std::optional<gid_t> run_as_gid;           // default: the user's primary group
  bool allow_root = false;                   // run_as_uid 0 is refused unless set; so is a root runner's
                                             // command without run_as (Runner::Run)
};

// Placeholders, replaced as whole arguments or inside one (never through a shell):
//   {path} {kind} {id} {root} {name} {dir} of the event (of a batch's last event),
//   {delivery_id} {attempt} {rule}, and {paths}, which must be a whole argument and becomes
//   one argument per event path. Any other "{word}" (lower-case letters and '_') is an error
//   naming the argument's index; other braces are literal text.
Status CheckCommandTemplate(const std::vector<std::string>& argv);
// The command line for `context`; assumes CheckCommandTemplate passed (unknown placeholders
// are left as written).
std::vector<std::string> ExpandArgv(const std::vector<std::string>& argv, const DeliveryContext& context);

// Runs the command with the payload on stdin and an environment of exactly PATH=/usr/local/bin:
// /usr/bin:/bin, LANG=C.UTF-8, HOME (of the user it runs as), FATHOM_DELIVERY_ID,
// FATHOM_ATTEMPT and FATHOM_RULE. Its stdout and stderr go to the runner's stderr. With
// run_as_uid the child calls setgroups (the user's groups), setgid (run_as_gid, else the
// user's primary group) and setuid before exec; uid 0 is refused (permanent) unless
// allow_root, and a failure to change user is "cannot run X as uid N: ...". Outcome: exit 0 ->
// success; an exit code in retry_exit_codes or the time limit -> retry; any other exit, a
// signal, a command that cannot start -> permanent. Messages: "exit 0", "exit 3",
// "killed by signal 9", "timed out after 10 s", "cannot run X: No such file or directory".
ActionOutcome RunCommandAction(const CommandAction& action, const DeliveryContext& context);

struct WebhookAction {
  std::string url;                        // http:// or https://
  std::vector<std::string> secret_files;  // 1, or 2 while a secret is rotated
  int64_t timeout_ns = std::chrono::nanoseconds(std::chrono::seconds(15)).count();
  bool allow_loopback = false;  // 127.0.0.0/8, ::1, 0.0.0.0, 169.254.0.0/16, fe80::/10
  bool allow_private = false;   // 10/8, 172.16/12, 192.168/16, fc00::/7
};

// POSTs the payload (Content-Type: application/json) with the Standard Webhooks headers:
// webhook-id (the delivery id, the same on every attempt), webhook-timestamp (seconds) and
// webhook-signature ("v1,BASE64", one per secret, space-separated). Secret files must not be
// readable or writable by group or others (mode 0600 or stricter); a file holds the raw
// secret or "whsec_" and base64 (a trailing newline is ignored). Redirects are not followed.
// An address outside what allow_loopback / allow_private permit is refused before any
// connection. Outcome: 2xx -> success; 429, 5xx, no connection, reset, DNS failure, timeout
// -> retry (Retry-After, in seconds or as an HTTP-date, gives retry_after_ns); 410 -> disable;
// 3xx and other 4xx, a refused address, a bad URL or secret -> permanent.
ActionOutcome RunWebhookAction(const WebhookAction& action, const DeliveryContext& context);
// The configuration alone: an http:// or https:// URL and one or two secret files, each
// readable and not accessible to group or others. The error names what is wrong.
Status CheckWebhookAction(const WebhookAction& action);

}  // namespace fathom::rules
