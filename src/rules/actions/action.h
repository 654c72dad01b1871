// action.h — performing one delivery's action (a command, a webhook, a copy of the events'
// files or a mail) and what the outcome means for the journal: success, retry (maybe after a
// delay), permanent failure, or an endpoint to disable.
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
// the Run*Action functions block until the action ends (at most about its timeout).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
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
// `extra`, when given, appends members (",\"name\":value") to each event's object.
std::string DeliveryPayload(const DeliveryContext& context,
                            const std::function<void(const Event&, std::string&)>& extra = {});

// What the file at `path` is now, as a JSON object read without following a symbolic link:
//   {"type":"file","size":N,"blocks":N,"mode":"0644","uid":N,"gid":N,"mtime_ns":N,"ctime_ns":N
//    [,"sha256":"64 hex digits"]}
// (type: file, dir, symlink, fifo, socket, char, block); "sha256" only with `sha256` and for a
// regular file. {"error":"..."} when it cannot be read: {"error":"gone"} when it no longer
// exists, else the reason.
std::string FileFactsJson(const std::string& path, bool sha256);

struct CommandAction {
  std::vector<std::string> argv;  // a template: see CheckCommandTemplate
  int64_t timeout_ns = std::chrono::nanoseconds(std::chrono::minutes(10)).count();
  std::vector<int> retry_exit_codes = {75};  // EX_TEMPFAIL
  std::vector<int> permanent_exit_codes;     // when given, every other non-zero exit is retried
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
// signal, a command that cannot start -> permanent; with permanent_exit_codes, an exit code
// in it -> permanent and any other non-zero one -> retry. Messages: "exit 0", "exit 3",
// "killed by signal 9", "timed out after 10 s", "cannot run X: No such file or directory".
ActionOutcome RunCommandAction(const CommandAction& action, const DeliveryContext& context);

struct WebhookAction {
  std::string url;                        // http:// or https://
  std::vector<std::string> secret_files;  // 1, or 2 while a secret is rotated
  int64_t timeout_ns = std::chrono::nanoseconds(std::chrono::seconds(15)).count();
  bool allow_loopback = false;  // 127.0.0.0/8, ::1, 0.0.0.0, 169.254.0.0/16, fe80::/10
  bool allow_private = false;   // 10/8, 172.16/12, 192.168/16, fc00::/7
  std::vector<int> retry_statuses;      // HTTP statuses (300-599) retried whatever the default
  std::vector<int> permanent_statuses;  // HTTP statuses (300-599) permanent whatever the default
  bool include_stat = false;            // each event with its file's attributes, read when sent
  bool include_sha256 = false;          // and the SHA-256 of a regular file's content
};

// POSTs the payload (Content-Type: application/json; with include_stat or include_sha256,
// each event gains "file": FileFactsJson of its path, read at the attempt) with the Standard
// Webhooks headers:
// webhook-id (the delivery id, the same on every attempt), webhook-timestamp (seconds) and
// webhook-signature ("v1,BASE64", one per secret, space-separated). Secret files must not be
// readable or writable by group or others (mode 0600 or stricter); a file holds the raw
// secret or "whsec_" and base64 (a trailing newline is ignored). Redirects are not followed.
// An address outside what allow_loopback / allow_private permit is refused before any
// connection. Outcome: 2xx -> success; 429, 5xx, no connection, reset, DNS failure, timeout
// -> retry (Retry-After, in seconds or as an HTTP-date, gives retry_after_ns); 410 -> disable;
// 3xx and other 4xx, a refused address, a bad URL or secret -> permanent. A status in
// retry_statuses is retried (Retry-After honoured), one in permanent_statuses permanent,
// instead of what its default says.
ActionOutcome RunWebhookAction(const WebhookAction& action, const DeliveryContext& context);
// The configuration alone: an http:// or https:// URL and one or two secret files, each
// readable and not accessible to group or others. The error names what is wrong.
Status CheckWebhookAction(const WebhookAction& action);

struct CopyAction {
  std::string to;       // the destination directory: a file /a/b goes to TO/a/b
  bool verify = true;   // checksum: sha256 (read the copy back and compare), or none
};

// Copies each event's file (each path once, in order) to ReplicaPath(to, path)
// (core/file_copy.h): a temporary name, SHA-256 of what was read checked against what was
// written, renamed into place, never replacing anything. A destination that already holds the
// same content counts as copied (a repeated attempt changes nothing). Outcome: every file
// copied -> success ("copied /a/b to /archive/a/b (sha256:...)", or "copied 3 of 3 files to
// /archive (1 already there)"); a source gone, not a regular file or a symbolic link, a
// destination holding other content, a permission refused -> permanent; other failures
// (no space, I/O, a copy that differs from what was read) -> retry. In a batch every file is
// tried; the outcome is permanent if any file's is, else retry if any file's is, and the
// message names each file that failed.
ActionOutcome RunCopyAction(const CopyAction& action, const DeliveryContext& context);

struct MailAction {
  std::vector<std::string> to;                    // recipients
  std::string subject;                            // "" -> "fathom: rule RULE: N events"
  std::string from = "fathom";
  std::string sendmail = "/usr/sbin/sendmail";    // the sendmail interface (core/mail_message.h)
  int64_t timeout_ns = std::chrono::nanoseconds(std::chrono::minutes(1)).count();
};

// Mails the delivery through `sendmail -t -oi`: headers To, From, Subject, X-Fathom-Delivery
// (the delivery id, the same on every attempt), X-Fathom-Rule and X-Fathom-Attempt; the body
// lists each event ("KINDS PATH (event ID)", paths written lossily as UTF-8). Outcome as a
// command's with retry_exit_codes {75}: exit 0 -> success, 75 (EX_TEMPFAIL) or the time
// limit -> retry, another exit, a signal or a sendmail that cannot start -> permanent;
// messages "sendmail exit 75", "cannot run /usr/sbin/sendmail: ...".
ActionOutcome RunMailAction(const MailAction& action, const DeliveryContext& context);

// A rule's action, and running whichever it is.
using Action = std::variant<CommandAction, WebhookAction, CopyAction, MailAction>;
ActionOutcome RunAction(const Action& action, const DeliveryContext& context);

}  // namespace fathom::rules
