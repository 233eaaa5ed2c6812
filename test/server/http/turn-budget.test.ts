import { describe, expect, it } from 'vitest';
import { createTurnBudget } from '../../../server/http/turn-budget';

// Requests started a few per turn of the event loop (server/http/turn-budget.ts), on a clock the test moves:
// each start "costs" what it adds to it. A turn ends in its check phase; awaiting one setImmediate from
// the test lets the check phase that the admitted starts set up run.

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function budget(budgetMs: number) {
  let clock = 0;
  const turns = createTurnBudget({ budgetMs, now: () => clock });
  const ran: string[] = [];
  const start = (name: string, costMs: number) => () => {
    ran.push(name);
    clock += costMs;
  };
  return { turns, ran, start };
}

describe('requests started per turn', () => {
  it('starts requests at once while the turn has budget left', () => {
    const { turns, ran, start } = budget(10);

    turns.admit(start('a', 3));
    turns.admit(start('b', 3));
    turns.admit(start('c', 3));

    expect(ran).toEqual(['a', 'b', 'c']);
    expect(turns.waiting).toBe(0);
  });

  it('holds the requests past the budget for later in the turn, and starts them in the order they came', async () => {
    const { turns, ran, start } = budget(10);

    turns.admit(start('a', 6));
    turns.admit(start('b', 6));
    turns.admit(start('c', 3));
    turns.admit(start('d', 3));

    expect(ran).toEqual(['a', 'b']);
    expect(turns.waiting).toBe(2);

    await nextTurn();

    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    expect(turns.waiting).toBe(0);
  });

  it('leaves what a spent turn cannot start for the next turn, and loses none', async () => {
    const { turns, ran, start } = budget(10);

    turns.admit(start('a', 15));
    turns.admit(start('b', 15));
    turns.admit(start('c', 1));

    await nextTurn();
    // The check phase may spend up to twice the budget: b fits (15 of 20), c waits.
    expect(ran).toEqual(['a', 'b']);
    expect(turns.waiting).toBe(1);

    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(turns.waiting).toBe(0);
  });

  it('puts a request that comes while others wait behind them, even with budget to spare', async () => {
    const { turns, ran, start } = budget(10);
    turns.admit(start('a', 15));
    turns.admit(start('b', 15));
    turns.admit(start('c', 1));
    await nextTurn();
    expect(turns.waiting).toBe(1);

    // A fresh turn's budget, but c came first.
    turns.admit(start('d', 1));
    expect(ran).toEqual(['a', 'b']);
    await nextTurn();

    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    expect(turns.waiting).toBe(0);
  });
});
