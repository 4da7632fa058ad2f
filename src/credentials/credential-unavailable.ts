/**
 * A connection's credential could not be had (a token endpoint refused the key, a key file is
 * missing): the connection's `credential` failure, structural until it is fixed. The message
 * names the connection and what failed, never a key or a token.
 */
export class CredentialUnavailable extends Error {
  constructor(connectionName: string, whatFailed: string) {
    super(`connection ${connectionName}: ${whatFailed}`);
    this.name = 'CredentialUnavailable';
  }
}
