import { Component, type FunctionComponent, h } from 'preact';

/**
 * A component drawn again only when one of its props changes (compared one by one): what lets a
 * transcript of a thousand segments re-render just the row that changed. (Preact's own `memo` lives
 * in preact/compat, which would bring React's compatibility layer into the bundle.)
 */
export function memo<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
  class Memo extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      const now = this.props as Record<string, unknown>;
      const then = next as Record<string, unknown>;
      const keys = Object.keys(then);
      return keys.length !== Object.keys(now).length || keys.some((key) => now[key] !== then[key]);
    }
    override render() {
      return h(render, this.props);
    }
  }
  return Memo as unknown as FunctionComponent<P>;
}
