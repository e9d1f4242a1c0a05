/** A subject prefix: one subject token of letters, digits, `_` and `-`; empty means none. */
export const SUBJECT_PREFIX_PATTERN = /^[A-Za-z0-9_-]*$/;

/** The reply inbox prefix NATS clients use when none is configured. */
const DEFAULT_INBOX_PREFIX = '_INBOX';

/**
 * How one platform's names appear on a NATS server it may share with others (staging and production,
 * a test run and a benchmark). With a prefix, every subject is `<prefix>.<subject>`, every queue group
 * `<prefix>.<group>` and every reply inbox `<prefix>._INBOX.<id>`, so platforms on one server never
 * answer each other, and an operator can grant each one `<prefix>.>`. Without a prefix the names are
 * the contracts' own. Contracts keep their unprefixed subjects: only the NATS transport applies this
 * (the in-process hub lives in one process and needs none).
 */
export class SubjectNaming {
  /** `<prefix>.`, or empty: prepended to every name. */
  private readonly head: string;
  /** Each contract's subject on the wire, computed once per contract, not once per message. */
  private readonly contractSubjects = new WeakMap<object, string>();
  /** Where replies to this platform's requests go (the NATS client's `inboxPrefix`). */
  readonly inboxPrefix: string;

  constructor(readonly prefix = '') {
    if (!SUBJECT_PREFIX_PATTERN.test(prefix)) throw new Error(`invalid NATS subject prefix ${JSON.stringify(prefix)}: letters, digits, _ and - only`);
    this.head = prefix ? `${prefix}.` : '';
    this.inboxPrefix = `${this.head}${DEFAULT_INBOX_PREFIX}`;
  }

  /** The wire subject of a subject the contracts name (or of a routed event's `<subject>.<route>`). */
  subject(subject: string): string {
    return this.head ? `${this.head}${subject}` : subject;
  }

  /** The wire subject of a contract, cached per contract object. */
  subjectOf(contract: { readonly subject: string }): string {
    if (!this.head) return contract.subject;
    let subject = this.contractSubjects.get(contract);
    if (subject === undefined) {
      subject = `${this.head}${contract.subject}`;
      this.contractSubjects.set(contract, subject);
    }
    return subject;
  }

  /** The wire name of a queue group (the owning app's name, or an event handler's group). */
  queue(group: string): string {
    return this.head ? `${this.head}${group}` : group;
  }
}
