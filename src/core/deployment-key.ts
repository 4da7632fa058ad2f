/** A deployment is one upstream model on one connection: the unit health state is kept for. */
export function deploymentKey(connectionName: string, routedModel: string): string {
  return `${connectionName}/${routedModel}`;
}
