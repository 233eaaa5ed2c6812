import { describe, expect, it } from 'vitest';
import { parseRoles, roleOf } from '../../../server/auth/roles';
import { readTeamConfig } from '../../../server/auth/team-config';
import { parseTrustedProxies } from '../../../server/auth/trusted-proxies';
import { sameOriginPath } from '../../../server/http/paths';
import { jsonEvent } from '../../../server/notify/payload';
import { apiRefusal, apiRuleOf } from '../../../src/model/api-roles';
import { roleReaches } from '../../../src/model/roles';

// Team sign-in's rules (docs/team.md): roles from groups, trusted proxies by CIDR, the `return` of a sign-in,
// the role of each forwarded API call, and what start-up refuses.

describe('roles from groups', () => {
  const roles = parseRoles('admin=platform-admins;operator=ops-oncall, sre;viewer=*');
  it('gives the highest role any group gives, and viewer to everyone through *', () => {
    expect(roleOf(roles, ['sre', 'platform-admins'])).toBe('admin');
    expect(roleOf(roles, ['ops-oncall'])).toBe('operator');
    expect(roleOf(roles, ['sre'])).toBe('operator');
    expect(roleOf(roles, [])).toBe('viewer');
  });
  it('gives no role when no rule names a group of the person', () => {
    expect(roleOf(parseRoles('admin=a;viewer=readers'), ['others'])).toBeNull();
  });
  it('refuses a rule without a role or groups', () => {
    expect(() => parseRoles('owner=a')).toThrow(/"owner" is not a role/);
    expect(() => parseRoles('admin=')).toThrow(/admin is given to no group/);
    expect(() => parseRoles(' ; ')).toThrow(/gives no role/);
  });
  it('ranks viewer < operator < admin', () => {
    expect(roleReaches('operator', 'viewer')).toBe(true);
    expect(roleReaches('viewer', 'operator')).toBe(false);
    expect(roleReaches('admin', 'admin')).toBe(true);
    expect(roleReaches(null, 'viewer')).toBe(false);
  });
});

describe('trusted proxies', () => {
  it('matches IPv4 and IPv6 CIDRs, and an IPv4 address mapped into IPv6', () => {
    const trusted = parseTrustedProxies('10.0.0.0/8, 127.0.0.1/32, fd00::/8');
    expect(trusted.trusts('10.1.2.3')).toBe(true);
    expect(trusted.trusts('::ffff:10.1.2.3')).toBe(true);
    expect(trusted.trusts('127.0.0.1')).toBe(true);
    expect(trusted.trusts('127.0.0.2')).toBe(false);
    expect(trusted.trusts('::ffff:127.0.0.2')).toBe(false);
    expect(trusted.trusts('fd12::1')).toBe(true);
    expect(trusted.trusts('fe80::1')).toBe(false);
    expect(trusted.trusts(undefined)).toBe(false);
  });
  it('trusts only loopback by default', () => {
    const trusted = parseTrustedProxies();
    expect(trusted.trusts('127.0.0.1')).toBe(true);
    expect(trusted.trusts('::1')).toBe(true);
    expect(trusted.trusts('192.168.1.1')).toBe(false);
  });
  it('refuses * and every address', () => {
    expect(() => parseTrustedProxies('*')).toThrow(/refused/);
    expect(() => parseTrustedProxies('0.0.0.0/0')).toThrow(/every address/);
    expect(() => parseTrustedProxies('::/0')).toThrow(/every address/);
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/prefix/);
    expect(() => parseTrustedProxies('proxy.internal')).toThrow(/not an address/);
  });
});

describe('the return of a sign-in', () => {
  it('is a same-origin path, else /', () => {
    expect(sameOriginPath('/projects/p-1?tab=history')).toBe('/projects/p-1?tab=history');
    expect(sameOriginPath('//evil.example/')).toBe('/');
    expect(sameOriginPath('https://evil.example/')).toBe('/');
    expect(sameOriginPath('/\\evil.example')).toBe('/');
    expect(sameOriginPath('javascript:alert(1)')).toBe('/');
  });
});

describe('the role of each forwarded API call', () => {
  it('reads are the viewers’', () => {
    expect(apiRuleOf('GET', '/projects/p-1/operations').role).toBe('viewer');
    expect(apiRuleOf('HEAD', '/api_keys').role).toBe('viewer');
  });
  it('computes and branches are the operators’, named as the audit trail names them', () => {
    const restart = apiRuleOf('POST', '/projects/p-1/endpoints/ep-1/restart');
    expect(restart).toMatchObject({ role: 'operator', action: 'Restart compute', projectId: 'p-1' });
    expect(apiRefusal(restart)).toBe('Operators can restart computes');
    expect(apiRuleOf('POST', '/projects/p-1/endpoints/ep-1/suspend')).toMatchObject({ role: 'operator', action: 'Suspend compute' });
    expect(apiRuleOf('POST', '/projects/p-1/endpoints/ep-1/start')).toMatchObject({ role: 'operator', action: 'Start compute' });
    expect(apiRuleOf('POST', '/projects/p-1/branches')).toMatchObject({ role: 'operator', action: 'Create branch' });
    expect(apiRuleOf('DELETE', '/projects/p-1/branches/br-1')).toMatchObject({ role: 'operator', action: 'Delete branch' });
  });
  it('API keys and any other change are the admins’', () => {
    expect(apiRuleOf('POST', '/api_keys')).toMatchObject({ role: 'admin', action: 'Create API key' });
    expect(apiRuleOf('DELETE', '/api_keys/42')).toMatchObject({ role: 'admin', action: 'Revoke API key' });
    expect(apiRuleOf('PATCH', '/projects/p-1/branches/br-1').role).toBe('admin');
    expect(apiRuleOf('DELETE', '/projects/p-1').role).toBe('admin');
    expect(apiRuleOf('POST', '/projects/p-1/endpoints').role).toBe('admin');
  });
});

describe('start-up', () => {
  const team = { TEAM_API_KEY: 'team-key-000000000000', ROLES: 'viewer=*' };
  it('is key mode by default, unchanged', () => {
    expect(readTeamConfig({})).toMatchObject({ mode: 'key', sessionHours: 12, auditRetentionDays: 400 });
  });
  it('refuses a team mode without TEAM_API_KEY or ROLES', () => {
    expect(() => readTeamConfig({ SIGN_IN: 'proxy', ROLES: 'viewer=*' })).toThrow(/TEAM_API_KEY/);
    expect(() => readTeamConfig({ SIGN_IN: 'proxy', TEAM_API_KEY: 'k' })).toThrow(/ROLES/);
    expect(() => readTeamConfig({ SIGN_IN: 'ldap' })).toThrow(/key, oidc or proxy/);
  });
  it('refuses an http issuer off this machine, and TRUSTED_PROXIES=*', () => {
    expect(() => readTeamConfig({ ...team, SIGN_IN: 'oidc', OIDC_ISSUER: 'http://idp.example', OIDC_CLIENT_ID: 'c' })).toThrow(/must be https/);
    expect(readTeamConfig({ ...team, SIGN_IN: 'oidc', OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_CLIENT_ID: 'c' }).mode).toBe('oidc');
    expect(() => readTeamConfig({ ...team, SIGN_IN: 'proxy', TRUSTED_PROXIES: '*' })).toThrow(/refused/);
    expect(() => readTeamConfig({ ...team, SIGN_IN: 'proxy', TRUSTED_PROXIES: '0.0.0.0/0' })).toThrow(/refused/);
  });
});

describe('webhook payloads', () => {
  const event = {
    id: 'evt-1',
    type: 'operation.finished' as const,
    occurredAt: '2026-12-01T00:00:00.000Z',
    project: { id: 'p-1', name: 'shop' },
    operation: { id: 'op-1', action: 'restart_compute', status: 'finished' },
  };
  it('carry who started the operation through the console, and nothing for one started elsewhere', () => {
    const publicUrl = new URL('https://console.example.com');
    expect(jsonEvent({ ...event, actor: { email: 'otto@example.com', name: 'Otto Operator' } }, publicUrl).actor).toEqual({
      email: 'otto@example.com',
      name: 'Otto Operator',
    });
    expect('actor' in jsonEvent(event, publicUrl)).toBe(false);
  });
});
