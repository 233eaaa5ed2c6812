import { describe, expect, it } from 'vitest';
import { bracketed, hostPort, isLoopbackHost, isWildcardHost } from '../../src/lib/hosts';

describe('host names and addresses', () => {
  it('counts every spelling of this machine as loopback', () => {
    for (const host of [
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '0000:0000::0001',
      '127.0.0.1',
      '127.8.9.10',
      '::ffff:127.0.0.1',
      '::FFFF:127.1.2.3',
      'localhost',
      'app.localhost',
      'LOCALHOST',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
  });

  it('counts no other host as loopback', () => {
    for (const host of [
      '',
      '::',
      '::2',
      '1::1',
      '128.0.0.1',
      '10.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:128.0.0.1',
      'example.com',
      'localhost.example.com',
      '127.0.0.1.evil.com',
      '0.0.0.0',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('reads a bind address of every interface in each spelling, and no specific one', () => {
    for (const host of ['', '0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '0::0']) expect(isWildcardHost(host), host).toBe(true);
    for (const host of ['127.0.0.1', '::1', '0:0:0:0:0:0:0:1', '192.168.1.2', 'example.com']) expect(isWildcardHost(host), host).toBe(false);
  });

  it('writes an IPv6 address in brackets beside its port, once', () => {
    expect(hostPort('::1', 5173)).toBe('[::1]:5173');
    expect(hostPort('[::1]', '80')).toBe('[::1]:80');
    expect(hostPort('127.0.0.1', 5173)).toBe('127.0.0.1:5173');
    expect(hostPort('example.com', 443)).toBe('example.com:443');
    expect(bracketed('fe80::1')).toBe('[fe80::1]');
  });
});
