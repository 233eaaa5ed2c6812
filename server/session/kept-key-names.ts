// Kept keys named as every session names its key (the archive once had a fingerprint of its own): each time the
// store opens, the sources still under the old name are named again (server/store/sources.ts), so the session
// whose key it is still sees its source as its own.
import type { Log } from '../log/logger';
import { FINGERPRINT_LENGTH, type Seal } from '../seal/seal';
import { refingerprintSources } from '../store/sources';
import type { Store } from '../store/store';

export function renameKeptKeysOnOpen(store: Pick<Store, 'onOpen'>, seal: Seal, log: Log): void {
  store.onOpen((db) => {
    const fingerprintOf = (sealed: string) => {
      const key = seal.open('kept-key', sealed);
      return key === null ? null : seal.fingerprint(key);
    };
    refingerprintSources(db, fingerprintOf, FINGERPRINT_LENGTH).catch((error: unknown) =>
      log(`Archive: could not rename kept keys (${error instanceof Error ? error.message : String(error)})`, {
        event: 'archive.rename_failed',
        level: 'error',
      }),
    );
  });
}
