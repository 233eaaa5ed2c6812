import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BusyBanner, type BannerOperation } from '../../src/components/busy-banner';

const op = (id: string, status: string): BannerOperation => ({ id, action: 'apply_config', status });

describe('BusyBanner', () => {
  it('does not call operations in a status no one knows "running"', () => {
    const operations = Array.from({ length: 100 }, (_, i) => op(`op-${i}`, 'teleporting'));
    render(<BusyBanner operations={operations} now={Date.now()} />);
    expect(screen.getByText(/in this project/)).toHaveTextContent('100 operations are in an unknown state in this project');
    expect(screen.queryByText(/running/)).not.toBeInTheDocument();
    expect(screen.getAllByText(/unknown status “teleporting”/)).toHaveLength(5);
  });

  it('counts known and unknown apart', () => {
    render(<BusyBanner operations={[op('a', 'running'), op('b', 'scheduling'), op('c', 'teleporting')]} now={Date.now()} />);
    expect(screen.getByText(/in this project/)).toHaveTextContent('2 operations are running and one is in an unknown state in this project');
  });

  it('says "running" for one known operation in flight', () => {
    render(<BusyBanner operations={[op('a', 'running')]} now={Date.now()} />);
    expect(screen.getByText(/in this project/)).toHaveTextContent('An operation is running in this project');
  });
});
