import { describe, expect, it } from 'vitest'
import { endpointUrl, isLoopbackHost, parseListenAddress } from '../../src/http/listen-address.js'

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0, loopback: true }],
    ['127.8.9.10:65535', { host: '127.8.9.10', port: 65_535, loopback: true }],
    ['[::1]:8080', { host: '::1', port: 8080, loopback: true }],
    ['localhost:3000', { host: 'localhost', port: 3000, loopback: true }],
    ['LocalHost:3000', { host: 'LocalHost', port: 3000, loopback: true }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0, loopback: false }],
    ['[::]:0', { host: '::', port: 0, loopback: false }],
    ['192.168.1.5:80', { host: '192.168.1.5', port: 80, loopback: false }],
    // A name may resolve to any address, even one called localhost.example.
    ['localhost.example:80', { host: 'localhost.example', port: 80, loopback: false }],
    ['127.example:80', { host: '127.example', port: 80, loopback: false }],
  ])('reads %s', (text, address) => {
    expect(parseListenAddress(text)).toEqual({ ok: true, address })
  })

  it.each([
    ['127.0.0.1', '"127.0.0.1" is not HOST:PORT (an IPv6 host in brackets: [::1]:8080)'],
    [':8080', '":8080" is not HOST:PORT (an IPv6 host in brackets: [::1]:8080)'],
    ['::1:8080', '"::1:8080" is not HOST:PORT (an IPv6 host in brackets: [::1]:8080)'],
    ['127.0.0.1:http', '"127.0.0.1:http" is not HOST:PORT (an IPv6 host in brackets: [::1]:8080)'],
    ['127.0.0.1:65536', 'port 65536 is above 65535'],
    ['[localhost]:80', '[localhost] is not an IPv6 address'],
  ])('refuses %s', (text, problem) => {
    expect(parseListenAddress(text)).toEqual({ ok: false, problem })
  })
})

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['example.com', false],
  ])('%s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })
})

describe('endpointUrl', () => {
  it('brackets an IPv6 host, as a URL must', () => {
    expect(endpointUrl('::1', 8080)).toBe('http://[::1]:8080/mcp')
    expect(endpointUrl('127.0.0.1', 1234)).toBe('http://127.0.0.1:1234/mcp')
    expect(endpointUrl('localhost', 1)).toBe('http://localhost:1/mcp')
  })
})
