import { describe, expect, it } from 'vitest';
import { describePostgresUrl } from './postgres-store.js';

describe('describePostgresUrl', () => {
  it('keeps the user, host, port and database and drops the password wherever it is', () => {
    expect(describePostgresUrl('postgres://gateway:s3cret@db.internal:5433/switchyard')).toBe('postgres://gateway@db.internal:5433/switchyard');
    expect(describePostgresUrl('postgresql://gateway@db.internal/switchyard?password=s3cret&sslmode=require')).toBe('postgresql://gateway@db.internal/switchyard?sslmode=require');
  });
});
