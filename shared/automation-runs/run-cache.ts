// What one run of the step runner reads once and reuses: automations, their steps, step contents,
// country names, the accounts' SES tenants and whether their suppression state is complete; and the
// one look a second at each automation it mails.
import { getAutomation, type Automation } from '../automations/repository';
import { listAutomationSteps, type AutomationStepSummary } from '../automations/steps';
import { RecordNotFound } from '../table/errors';
import { findCountry } from '../reference-data/repository';
import { stepContent, type StepMail } from './step-content';
import { ensureAccountTenant, type AccountTenant } from '../tenancy/tenant-service';
import { automationIsLive } from '../automations/reputation-pause';
import { watchForPause } from '../delivery/deliver';
import { stateMarker } from '../suppressions/state';

/** Whether the automation being mailed was paused meanwhile; `stop()` when done with it. */
export interface PauseWatch {
  paused: () => boolean;
  stop: () => void;
}

/** What one run reads once and reuses: automations, their steps, step contents, country names. */
export class RunCache {
  private automations = new Map<string, Promise<Automation | undefined>>();
  private steps = new Map<string, Promise<AutomationStepSummary[]>>();
  private contents = new Map<string, Promise<StepMail>>();
  private countries = new Map<string, Promise<string | undefined>>();
  private tenants = new Map<number, Promise<AccountTenant | undefined>>();
  private suppressionStates = new Map<number, Promise<boolean>>();
  private pauseWatches = new Map<string, { watch: PauseWatch; users: number }>();

  /**
   * Watch whether the automation was paused while it is mailed: one look a second however many of
   * its due pages are mailed side by side (a run reads up to 16 partitions at once, and a watch for
   * each read the automation 16 times a second). The look stops when the last user stops.
   */
  pauseWatch(accountId: number, utr: string): PauseWatch {
    const key = `${accountId}#${utr}`;
    let shared = this.pauseWatches.get(key);
    if (!shared) {
      shared = { watch: watchForPause(async () => (await automationIsLive(accountId, utr)) === false), users: 0 };
      this.pauseWatches.set(key, shared);
    }
    const entry = shared;
    entry.users++;
    let stopped = false;
    return {
      paused: entry.watch.paused,
      stop: () => {
        if (stopped) return;
        stopped = true;
        if (--entry.users > 0) return;
        entry.watch.stop();
        this.pauseWatches.delete(key);
      },
    };
  }

  /** The account's SES tenant, made when missing and its status read once per run. */
  tenant(accountId: number): Promise<AccountTenant | undefined> {
    let found = this.tenants.get(accountId);
    if (!found) this.tenants.set(accountId, (found = ensureAccountTenant(accountId)));
    return found;
  }

  /**
   * Whether the account's suppression state was complete when this run first looked: read once per
   * run, so all of the run's mails of an account read the same way. The runner starts no backfill (its
   * function queues nothing); a single send's dispatch or an automation going live does.
   */
  suppressionState(accountId: number): Promise<boolean> {
    let found = this.suppressionStates.get(accountId);
    if (!found) this.suppressionStates.set(accountId, (found = stateMarker(accountId).then((marker) => marker.status === 'complete')));
    return found;
  }

  automation(accountId: number, utr: string): Promise<Automation | undefined> {
    const key = `${accountId}#${utr}`;
    let found = this.automations.get(key);
    if (!found) {
      found = getAutomation(accountId, utr).catch((error: unknown) => {
        if (error instanceof RecordNotFound) return undefined;
        throw error;
      });
      this.automations.set(key, found);
    }
    return found;
  }

  stepsOf(accountId: number, utr: string): Promise<AutomationStepSummary[]> {
    const key = `${accountId}#${utr}`;
    let found = this.steps.get(key);
    if (!found) this.steps.set(key, (found = listAutomationSteps(accountId, utr)));
    return found;
  }

  /** The step's mail and its sender's verification, read once per step per run. */
  content(accountId: number, automation: Automation, step: AutomationStepSummary): Promise<StepMail> {
    const key = `${accountId}#${step.utr}`;
    let found = this.contents.get(key);
    if (!found) this.contents.set(key, (found = stepContent(accountId, automation, step)));
    return found;
  }

  countryName(id: string): Promise<string | undefined> {
    let found = this.countries.get(id);
    if (!found) {
      found = /^\d+$/.test(id) ? findCountry(Number(id)).then((country) => country?.name).catch(() => undefined) : Promise.resolve(undefined);
      this.countries.set(id, found);
    }
    return found;
  }
}
