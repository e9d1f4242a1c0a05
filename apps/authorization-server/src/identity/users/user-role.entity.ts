import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { RoleEntity } from '../roles/role.entity';
import { UserEntity } from './user.entity';

/** Which roles a user has (always roles of the user's own tenant; the service keeps it so). */
@Entity({ name: 'user_roles' })
@Index('ix_user_roles_role', ['roleId'])
export class UserRoleEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_user_roles' })
  userId!: string;

  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_user_roles' })
  roleId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_user_roles_user' })
  user?: UserEntity;

  @ManyToOne(() => RoleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'role_id', foreignKeyConstraintName: 'fk_user_roles_role' })
  role?: RoleEntity;
}
