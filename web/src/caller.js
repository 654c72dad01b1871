// Who the session belongs to (GET /api/v1/whoami), for pages that offer actions to
// administrators only.
let caller = null;

export function setCaller(who) {
  caller = who;
}

export function callerIsAdmin() {
  return caller?.admin === true;
}
