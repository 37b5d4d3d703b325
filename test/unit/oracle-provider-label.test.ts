import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../lib/config';
import { createLogger, redactUrls } from '../../lib/log';
import { labelFromUrl, labelProviders } from '../../lib/upstream/provider-label';

/** The labels the configuration gives a MAINNET_RPC_URLS value. */
const labelsOf = (value: string) => parseConfig({ MAINNET_RPC_URLS: value }).mainnetRpc.map((p) => p.label);

/** Fails on any trace of an address, a port, `localhost` or a secret in a public label. */
function expectSafe(label: string) {
  expect(label).toMatch(/^[A-Za-z0-9_#-]{1,40}$/);
  expect(label).not.toMatch(/\d{1,3}\.\d{1,3}|localhost|::|:\d|s3cret|k3y|user|pass/i);
}

describe('labelFromUrl', () => {
  it.each([
    ['https://ethereum-rpc.publicnode.com', 'publicnode'],
    ['https://eth.llamarpc.com', 'llamarpc'],
    ['https://eth.drpc.org', 'drpc'],
    ['https://1rpc.io/eth', '1rpc'],
    ['https://cloudflare-eth.com', 'cloudflare-eth'],
    ['https://eth-mainnet.g.alchemy.com/v2/SECRETKEY123', 'alchemy'],
    ['https://mainnet.infura.io/v3/0123456789abcdef', 'infura'],
    ['https://user:pass@rpc.example.co.uk/key', 'example'],
    ['https://rpc.example.org:8443/x', 'example'],
  ])('names %s after its public host: %s', (url, label) => {
    expect(labelFromUrl(url)).toBe(label);
  });

  it.each([
    ['IPv4', 'http://127.0.0.1:8545/abc'],
    ['IPv4 in another notation', 'http://2130706433:8545/'],
    ['IPv6 loopback', 'http://[::1]:9002/'],
    ['IPv6', 'http://[2001:db8::7]:8545'],
    ['localhost', 'http://localhost:9001'],
    ['a localhost name', 'http://node.localhost:9001'],
    ['10.0.0.0/8', 'http://10.0.0.5:8545'],
    ['172.16.0.0/12', 'http://172.20.3.4:8545'],
    ['192.168.0.0/16', 'https://192.168.1.10/rpc'],
    ['IPv6 unique local', 'http://[fd12:3456::1]:8545'],
    ['a single-label host', 'http://geth:8545'],
    ['a private-network name', 'http://eth.node.internal:8545'],
    ['an mDNS name', 'http://mynode.local:8545'],
    ['localhost.localdomain', 'http://localhost.localdomain:8545'],
    ['a .localdomain name', 'https://my-node.localdomain/v3/key'],
    ['localhost under a public-looking name', 'http://localhost.example:8545'],
    ['a public name holding localhost', 'https://eth.localhost-rpc.net/v2/KEY'],
    ['a public name ending in localhost', 'https://mylocalhost.com'],
  ])('gives no name for %s', (_, url) => {
    expect(labelFromUrl(url)).toBeUndefined();
  });

  it('never includes a path, query, port or user info', () => {
    const label = labelFromUrl('https://k3y:s3cret@node.provider.net:8443/v2/s3cretpath?apikey=s3cretq');
    expect(label).toBe('provider');
    expectSafe(label as string);
  });
});

describe('labelProviders', () => {
  it('keeps labels unique in list order', () => {
    expect(
      labelProviders([
        { url: 'https://eth-mainnet.g.alchemy.com/v2/A' },
        { url: 'https://eth.drpc.org' },
        { url: 'https://eth-mainnet.g.alchemy.com/v2/B' },
      ]),
    ).toEqual(['alchemy', 'drpc', 'alchemy#2']);
  });

  it('calls address-only hosts rpc-N by their place in the list, never by address or port', () => {
    expect(labelProviders([{ url: 'http://127.0.0.1:4001/k' }, { url: 'http://127.0.0.1:4002/k' }])).toEqual([
      'rpc-1',
      'rpc-2',
    ]);
  });

  it('keeps an operator name and makes a derived label that collides with it unique', () => {
    expect(
      labelProviders([
        { name: 'drpc', url: 'http://10.0.0.5:8545' },
        { url: 'https://eth.drpc.org' },
        { name: 'rpc-3', url: 'http://10.0.0.6:8545' },
        { url: 'http://10.0.0.7:8545' },
      ]),
    ).toEqual(['drpc', 'drpc#2', 'rpc-3', 'rpc-4']);
  });
});

describe('provider lists in the configuration (SPEC.md extension 20)', () => {
  it('reads name=url entries and labels the rest from public hosts or as rpc-N', () => {
    const config = parseConfig({
      MAINNET_RPC_URLS:
        'mynode=http://10.0.0.5:8545, https://ethereum-rpc.publicnode.com,http://[fd00::5]:8545,' +
        'https://rpc.example.org:8443/v2/s3cretpath?apikey=s3cretq',
      BASE_RPC_URLS: 'Home_Node-2=http://user:pass@192.168.1.10:8545/k3y',
    });
    expect(config.mainnetRpc).toEqual([
      { label: 'mynode', url: 'http://10.0.0.5:8545' },
      { label: 'publicnode', url: 'https://ethereum-rpc.publicnode.com' },
      { label: 'rpc-3', url: 'http://[fd00::5]:8545' },
      { label: 'example', url: 'https://rpc.example.org:8443/v2/s3cretpath?apikey=s3cretq' },
    ]);
    expect(config.l2Rpc.base).toEqual([
      { label: 'Home_Node-2', url: 'http://user:pass@192.168.1.10:8545/k3y' },
    ]);
    for (const p of [...config.mainnetRpc, ...config.l2Rpc.base]) expectSafe(p.label);
  });

  it('does not take the = of a query string for a name', () => {
    expect(labelsOf('https://rpc.example.org/?apikey=s3cret,http://127.0.0.1:9/?k=v')).toEqual([
      'example',
      'rpc-2',
    ]);
  });

  it('labels every built-in provider safely', () => {
    const config = parseConfig({});
    for (const p of [...config.mainnetRpc, ...Object.values(config.l2Rpc).flat()]) expectSafe(p.label);
    expect(config.mainnetRpc.map((p) => p.label)).toEqual([
      'publicnode',
      'llamarpc',
      'drpc',
      '1rpc',
      'cloudflare-eth',
    ]);
  });

  it.each([
    ['a name with a space', 'my node=http://10.0.0.5:8545'],
    ['a name with a dot', 'my.node=http://10.0.0.5:8545'],
    ['an empty name', '=http://10.0.0.5:8545'],
    ['a name over 32 characters', `${'n'.repeat(33)}=http://10.0.0.5:8545`],
  ])('refuses %s, naming the variable and the entry', (_, value) => {
    const attempt = () => parseConfig({ OPTIMISM_RPC_URLS: `https://mainnet.optimism.io,${value}` });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/OPTIMISM_RPC_URLS: entry 2: a provider name is 1 to 32 letters, digits, - or _/);
  });

  it('accepts a name of exactly 32 characters', () => {
    expect(labelsOf(`${'n'.repeat(32)}=http://10.0.0.5:8545`)).toEqual(['n'.repeat(32)]);
  });

  it('refuses duplicate names at start-up, naming the variable, without echoing any URL', () => {
    const attempt = () =>
      parseConfig({
        POLYGON_RPC_URLS: 'a=http://10.0.0.5:8545/k3y,https://polygon-rpc.com,A=http://10.0.0.6:8545',
      });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/POLYGON_RPC_URLS: entries 1 and 3 have the same name "A"/);
    expect(attempt).not.toThrow(/10\.0\.0|k3y|8545/);
  });
});

describe('redactUrls (every log line passes through it)', () => {
  it.each([
    ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED [address]'],
    ['connect ECONNREFUSED ::1:5432', 'connect ECONNREFUSED [address]'],
    ['timeout at localhost:8545', 'timeout at [address]'],
    ['bad answer from http://10.0.0.5:8545/k3y', 'bad answer from [url]'],
    ['bad answer from http://[fd00::5]:8545', 'bad answer from [url]'],
    ['postgres://u:s3cret@172.20.0.2:5432/gas refused', '[url] refused'],
    ['https://k3y:s3cret@rpc.example.org:8443/v2/k3y?apikey=s3cret failed', 'rpc.example.org failed'],
    // Unbracketed IPv6, as Node's errors print it.
    ['connect EHOSTUNREACH fd00::5:5432', 'connect EHOSTUNREACH [address]'],
    ['connect ECONNREFUSED ::ffff:10.0.0.5:5432', 'connect ECONNREFUSED [address]'],
    ['from 2001:db8:0:0:0:0:0:1 at 9', 'from [address] at 9'],
    // At the end of a sentence too.
    ['no route to fd00::5.', 'no route to [address].'],
    ['peer fd00::5:5432. Retrying', 'peer [address]. Retrying'],
    ['refused by 10.0.0.5.', 'refused by [address].'],
  ])('%s -> %s', (text, redacted) => {
    expect(redactUrls(text)).toBe(redacted);
  });

  it('leaves times, labels and numbers alone', () => {
    const line =
      '2026-11-23T08:00:00.000Z warn rpc attempt failed {"provider":"rpc-1","kind":"timeout","ageMs":42000}';
    expect(redactUrls(line)).toBe(line);
    for (const text of ['hour 2026-11-25 23:00:00 stored', 'ratio 0.5:1', 'Class::method', 'INFO :: started'])
      expect(redactUrls(text)).toBe(text);
  });

  it('skips only lines with nothing to redact: no ":", no digit-dot-digit and no localhost', () => {
    expect(redactUrls('GET /api/gas 200 1ms')).toBe('GET /api/gas 200 1ms');
    expect(redactUrls('GET /openapi.json 304 0ms')).toBe('GET /openapi.json 304 0ms');
    // An IPv4 address needs no ':' to be found.
    expect(redactUrls('GET /10.0.0.5 404 0ms')).toBe('GET /[address] 404 0ms');
    expect(redactUrls('refused by 10.0.0.5')).toBe('refused by [address]');
    expect(redactUrls('GET /localhost 404 0ms')).toBe('GET /[address] 404 0ms');
    expect(redactUrls('GET /LocalHost 404 0ms')).toBe('GET /[address] 404 0ms');
  });

  it('a logged line keeps its time and has its message and fields redacted', () => {
    const lines: string[] = [];
    createLogger((line) => lines.push(line)).warn('refused by 10.0.0.5:8545', { at: 'http://10.0.0.5/k3y' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warn refused by \[address\] \{"at":"\[url\]"\}$/,
    );
  });
});
