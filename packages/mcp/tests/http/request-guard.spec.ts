import { describe, expect, it } from 'vitest'
import { requestGuard } from '../../src/http/request-guard.js'

const loopback = requestGuard({ host: '127.0.0.1', port: 0, loopback: true })

describe('requestGuard', () => {
  it.each([
    ['127.0.0.1:5000', undefined],
    ['localhost', undefined],
    ['LOCALHOST:80', undefined],
    ['[::1]:5000', undefined],
    ['127.0.0.1:5000', 'http://localhost:3000'],
    ['127.0.0.1:5000', 'http://[::1]'],
  ])('lets Host %s with Origin %s through on a loopback address', (host, origin) => {
    expect(loopback(host, origin)).toBeUndefined()
  })

  it.each([
    [undefined, 'no Host'],
    ['', 'an empty Host'],
    ['attacker.example', 'a rebound name'],
    ['127.0.0.1.attacker.example', 'a name that starts like the address'],
    ['localhost@attacker.example', 'userinfo before another host'],
    ['localhost/x', 'a path'],
    ['localhost:80:80', 'two ports'],
  ])('refuses Host %j (%s)', (host, _why) => {
    expect(loopback(host, undefined)).toBe(
      `Host ${JSON.stringify(host ?? '')} is not this server's address (localhost, 127.0.0.1, [::1], 127.0.0.1)`,
    )
  })

  it.each([['http://attacker.example'], ['null'], ['http://127.0.0.1.attacker.example'], ['not a url']])('refuses Origin %s', (origin) => {
    expect(loopback('127.0.0.1:5000', origin)).toBe(
      `Origin ${JSON.stringify(origin)} is not this server's site; a web page may not call it`,
    )
  })

  it('takes the bound IPv6 address, bracketed, as Host and Origin', () => {
    const guard = requestGuard({ host: 'fd00::5', port: 0, loopback: false })
    expect(guard('[fd00::5]:8080', 'http://[fd00::5]:8080')).toBeUndefined()
    expect(guard('[fd00::6]:8080', undefined)).toMatch(/^Host "\[fd00::6\]:8080" is not this server's address/)
  })

  it.each([['0.0.0.0'], ['::']])('on the wildcard %s, takes any Host but only an Origin naming that host', (host) => {
    const guard = requestGuard({ host, port: 0, loopback: false })
    expect(guard('build-box.lan:8080', undefined)).toBeUndefined()
    expect(guard('build-box.lan:8080', 'http://build-box.lan:3000')).toBeUndefined()
    expect(guard('build-box.lan:8080', 'http://attacker.example')).toMatch(/^Origin "http:\/\/attacker\.example" is not this server's site/)
    expect(guard('build box', undefined)).toMatch(/^Host "build box" is not this server's address/)
  })
})
