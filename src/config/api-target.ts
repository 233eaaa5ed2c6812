/** Human description of where /api/v2 goes, shown on the key screen and in the header. */
export const apiTarget = {
  isSimulator: __API_TARGET__ === '',
  label: __API_TARGET__ === '' ? 'the built-in simulator (demo data)' : __API_TARGET__,
};

