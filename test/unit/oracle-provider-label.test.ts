import { describe, expect, it } from 'vitest';
import { labelFromUrl, labelProviders } from '../../lib/upstream/provider-label';

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
    ['https://rpc.example.org:8443/x', 'example:8443'],
    ['http://127.0.0.1:8545/abc', '127.0.0.1:8545'],
    ['http://localhost:9001', 'localhost:9001'],
    ['http://[::1]:9002/', '[::1]:9002'],
  ])('labels %s as %s', (url, label) => {
    expect(labelFromUrl(url)).toBe(label);
  });

  it('never includes a path, query or user info', () => {
    const label = labelFromUrl('https://k3y:s3cret@node.provider.net/v2/s3cretpath?apikey=s3cretq');
    expect(label).toBe('provider');
    expect(label).not.toMatch(/s3cret|k3y/);
  });
});

describe('labelProviders', () => {
  it('keeps labels unique in list order', () => {
    expect(
      labelProviders([
        'https://eth-mainnet.g.alchemy.com/v2/A',
        'https://eth.drpc.org',
        'https://eth-mainnet.g.alchemy.com/v2/B',
      ]),
    ).toEqual(['alchemy', 'drpc', 'alchemy#2']);
  });

  it('tells local providers apart by port', () => {
    expect(labelProviders(['http://127.0.0.1:4001/k', 'http://127.0.0.1:4002/k'])).toEqual([
      '127.0.0.1:4001',
      '127.0.0.1:4002',
    ]);
  });
});
