"""Durable CI fetches and verdict callbacks: attempt counts and leases, so the reconciler can finish
what a lost worker or a restarted API process left undone.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('project_builds', schema=None) as batch_op:
        batch_op.add_column(sa.Column('fetch_attempts', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('fetch_queued_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('fetch_lease_until', sa.DateTime(), nullable=True))
    with op.batch_alter_table('project_commits', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notify_attempts', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('notify_claimed_until', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('project_commits', schema=None) as batch_op:
        batch_op.drop_column('notify_claimed_until')
        batch_op.drop_column('notify_attempts')
    with op.batch_alter_table('project_builds', schema=None) as batch_op:
        batch_op.drop_column('fetch_lease_until')
        batch_op.drop_column('fetch_queued_at')
        batch_op.drop_column('fetch_attempts')
