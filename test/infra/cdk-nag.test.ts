import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { applyNagChecks } from '../../lib/nag.ts';
import { buildNotesApp } from './support.ts';

/**
 * cdk-nag 3 is a CDK policy-validation plugin: its findings are not construct annotations (so
 * `Annotations.findError` sees none of them); they fail `cdk synth` and land in the cloud assembly's
 * validation report. Here the pack runs directly over the synthesized tree (`validateScope`), which
 * reports exactly the unacknowledged findings, errors and warnings alike.
 */
const built = buildNotesApp({ alarmEmail: 'ops@example.com' });
built.app.synth(); // also runs the registered plugin: it throws on an unacknowledged error

interface Acknowledgement {
  path: string;
  ruleId: string;
  reason: string;
}

/** The acknowledgements recorded on this construct itself (Validations.of(construct).acknowledge). */
function ownAcknowledgements(construct: IConstruct): Acknowledgement[] {
  return construct.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) =>
      Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
        path: construct.node.path,
        // aws-cdk-lib records them as `Annotation::<id>`.
        ruleId: id.replace(/^annotation::/i, ''),
        reason,
      })),
    );
}

/** Runs the pack and also records which acknowledgement silenced which finding. */
function runAwsSolutions(root: IConstruct) {
  const checks = new AwsSolutionsChecks();
  // cdk-nag's own lookup (NagPack.isAcknowledged, private in 3.0.2): wrapped to see which acknowledgements match.
  const pack = checks as unknown as { isAcknowledged(node: IConstruct, ruleId: string): boolean };
  expect(typeof pack.isAcknowledged).toBe('function');
  const lookup = pack.isAcknowledged.bind(checks);
  const used = new Set<string>();
  pack.isAcknowledged = (node, ruleId) => {
    for (let scope: IConstruct | undefined = node; scope; scope = scope.node.scope) {
      for (const ack of ownAcknowledgements(scope)) {
        if (ack.ruleId === ruleId) used.add(`${ack.path} ${ack.ruleId}`);
      }
    }
    return lookup(node, ruleId);
  };
  return { report: checks.validateScope(root), used };
}

const { report, used } = runAwsSolutions(built.app);
const acknowledgements = built.app.node.findAll().flatMap(ownAcknowledgements);

describe('cdk-nag AwsSolutions', () => {
  it('finds no unacknowledged error or warning', () => {
    const findings = report.violations.map(
      (v) => `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('leaves no CDK error or warning annotation either (where cdk-nag 2 put its findings)', () => {
    const annotations = Annotations.fromStack(built.stack);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('fails synthesis on an unacknowledged finding (the check bin/app.ts applies is live)', () => {
    const app = new App();
    new Queue(new Stack(app, 'Careless'), 'QueueWithoutDlqOrTls');
    applyNagChecks(app);
    expect(() => app.synth()).toThrow(
      /AwsSolutions-SQS3[\s\S]*AwsSolutions-SQS4|AwsSolutions-SQS4[\s\S]*AwsSolutions-SQS3/,
    );
  });

  it('has acknowledgements only for findings that exist (none is stale)', () => {
    expect(acknowledgements.length).toBeGreaterThan(0);
    const stale = acknowledgements.filter((a) => !used.has(`${a.path} ${a.ruleId}`));
    expect(stale).toEqual([]);
  });

  it('has a specific reason of at least 20 characters for every acknowledgement', () => {
    const generic =
      /^(n\/?a|none|todo|ok|fine|ignore[d]?|not (needed|required|applicable)|false positive|by design|accepted)\.?$/i;
    for (const { path, ruleId, reason } of acknowledgements) {
      expect(reason.trim().length, `${ruleId} at ${path}`).toBeGreaterThanOrEqual(20);
      expect(reason, `${ruleId} at ${path}`).not.toMatch(generic);
    }
  });

  it('never reuses one reason across unrelated rules (a blanket reason explains nothing)', () => {
    const rulesByReason = new Map<string, Set<string>>();
    for (const { ruleId, reason } of acknowledgements) {
      const family = ruleId.replace(/\[.*$/, '');
      rulesByReason.set(reason, (rulesByReason.get(reason) ?? new Set()).add(family));
    }
    for (const [reason, families] of rulesByReason) expect([...families], reason).toHaveLength(1);
  });

  it('acknowledges wildcard permissions finding by finding, never the whole IAM5 rule', () => {
    const blanket = acknowledgements.filter(
      (a) => a.ruleId === 'AwsSolutions-IAM5' || a.ruleId === 'AwsSolutions-IAM4',
    );
    expect(blanket).toEqual([]);
  });
});
