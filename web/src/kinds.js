// The event kinds the API filters on (kinds=...).
export const eventKinds = [
  'CREATE', 'MODIFY', 'ATTRIB', 'CLOSE_WRITE', 'CLOSE_NOWRITE', 'OPEN', 'ACCESS',
  'MOVED_FROM', 'MOVED_TO', 'DELETE', 'DELETE_SELF', 'MOVE_SELF', 'OVERFLOW', 'PARENT_REMOVED',
];
