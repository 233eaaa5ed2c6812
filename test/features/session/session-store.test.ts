import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PageSession } from '../../../src/api/page-data';
import type { SessionChannel, SessionMessage } from '../../../src/features/session/session-channel';
import { createSessionStore } from '../../../src/features/session/session-store';

// What the key screen will say when a person revokes the key the console is signed in with, while reads
// in flight (in this tab or another of this browser) are refused for it.

const SIGNED_IN: PageSession = { signedIn: true, fingerprint: 'fp-1', keyKind: 'personal', remembered: false };

/** The other tabs: what this one posts, and a way to deliver what they post. */
function otherTabs() {
  const posted: SessionMessage[] = [];
  let deliver: (message: SessionMessage) => void = () => undefined;
  const channel: SessionChannel = {
    post: (message) => posted.push(message),
    onMessage: (listener) => {
      deliver = listener;
    },
  };
  return { channel, posted, deliver: (message: SessionMessage) => deliver(message) };
}

function signedInStore(channel: SessionChannel | null = null) {
  const onSignedOut = vi.fn();
  const store = createSessionStore({ initial: SIGNED_IN, onSignedOut, channel });
  return { store, onSignedOut };
}

describe('holding rejections while a revoke is under way', () => {
  afterEach(() => vi.unstubAllGlobals());
  // Sign-out tells the console's server; nothing here needs it to answer.
  const quietFetch = () =>
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(new Response('{}'))),
    );

  it('a 401 that comes while held gives way to the reason the revoke finds', () => {
    quietFetch();
    const { store, onSignedOut } = signedInStore();
    const release = store.holdRejections();
    store.signOut('rejected');
    expect(store.getState().signedIn).toBe(true);

    store.signOut('revoked');
    release();
    expect(store.getState()).toMatchObject({ signedIn: false, signedOutBecause: 'revoked' });
    expect(onSignedOut).toHaveBeenCalledTimes(1);
  });

  it('a 401 that waited signs out as rejected once the revoke turns out to be of another key', () => {
    quietFetch();
    const { store } = signedInStore();
    const release = store.holdRejections();
    store.signOut('rejected');
    release();
    expect(store.getState()).toMatchObject({ signedIn: false, signedOutBecause: 'rejected' });
  });

  it('with nothing refused, releasing changes nothing', () => {
    const { store, onSignedOut } = signedInStore();
    store.holdRejections()();
    expect(store.getState().signedIn).toBe(true);
    expect(onSignedOut).not.toHaveBeenCalled();
  });

  it('a rejection another tab reports waits too', () => {
    quietFetch();
    const tabs = otherTabs();
    const { store } = signedInStore(tabs.channel);
    const release = store.holdRejections();
    tabs.deliver({ type: 'signed-out', reason: 'rejected' });
    expect(store.getState().signedIn).toBe(true);

    store.signOut('revoked');
    release();
    expect(store.getState()).toMatchObject({ signedIn: false, signedOutBecause: 'revoked', signedOutElsewhere: false });
    expect(tabs.posted).toEqual([{ type: 'signed-out', reason: 'revoked' }]);
  });

  it('a sign-out the person asked for in another tab is never held', () => {
    const tabs = otherTabs();
    const { store } = signedInStore(tabs.channel);
    const release = store.holdRejections();
    tabs.deliver({ type: 'signed-out', reason: 'signed-out' });
    expect(store.getState()).toMatchObject({ signedIn: false, signedOutBecause: 'signed-out', signedOutElsewhere: true });
    release();
    expect(store.getState().signedOutBecause).toBe('signed-out');
  });
});
