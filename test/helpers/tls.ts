// A throw-away certificate authority and a server certificate for one host name, made with the
// openssl CLI, for tests that need a real TLS upstream (trusted via NODE_EXTRA_CA_CERTS).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCerts {
  /** The CA certificate file (PEM), for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: string;
  cert: string;
}

export function makeCerts(dir: string, host: string): TestCerts {
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    ...['-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2'],
    ...['-subj', '/CN=NanoBench test CA', '-addext', 'basicConstraints=critical,CA:TRUE'],
    ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  );
  ssl('req', ...ec, '-keyout', f('srv.key'), '-out', f('srv.csr'), '-subj', `/CN=${host}`);
  writeFileSync(f('ext.cnf'), `subjectAltName=DNS:${host}\nextendedKeyUsage=serverAuth\n`);
  ssl(
    'x509',
    ...['-req', '-in', f('srv.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key')],
    ...['-CAcreateserial', '-out', f('srv.pem'), '-days', '2', '-extfile', f('ext.cnf')],
  );
  return {
    caFile: f('ca.pem'),
    key: readFileSync(f('srv.key'), 'utf8'),
    cert: readFileSync(f('srv.pem'), 'utf8'),
  };
}
