import { Module } from '@nestjs/common';
import { TasksRepository } from './tasks.repository';

/** The tasks table behind its repository. */
@Module({ providers: [TasksRepository], exports: [TasksRepository] })
export class StoreModule {}
