import { Module } from '@nestjs/common';
import { UpstreamCalls } from './upstream-calls';

/** The store's calls into the tool executor for upstream items; imported by every feature that serves them. */
@Module({ providers: [UpstreamCalls], exports: [UpstreamCalls] })
export class UpstreamCallsModule {}
