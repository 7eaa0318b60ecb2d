"""CI projects: projects, their commits and builds, webhook deliveries; worker presence for the dashboard.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('projects',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('owner_id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('targets', sa.JSON(), nullable=False),
    sa.Column('models', sa.JSON(), nullable=False),
    sa.Column('webhook_secret', sa.String(length=100), nullable=False),
    sa.Column('regression_threshold', sa.Float(), nullable=False),
    sa.Column('callback_url', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('secret_rotated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['owners.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('owner_id', 'name', name='uq_project_owner_name')
    )
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_projects_owner_id'), ['owner_id'], unique=False)

    op.create_table('project_commits',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('project_id', sa.String(length=32), nullable=False),
    sa.Column('sha', sa.String(length=64), nullable=False),
    sa.Column('ref', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('notified_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'sha', name='uq_project_commit_sha')
    )
    with op.batch_alter_table('project_commits', schema=None) as batch_op:
        batch_op.create_index('ix_project_commits_ref', ['project_id', 'ref', 'created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_project_commits_project_id'), ['project_id'], unique=False)

    op.create_table('project_builds',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('commit_id', sa.String(length=32), nullable=False),
    sa.Column('model_name', sa.String(length=100), nullable=False),
    sa.Column('target', sa.String(length=100), nullable=False),
    sa.Column('model_id', sa.String(length=32), nullable=True),
    sa.Column('source_url', sa.Text(), nullable=True),
    sa.Column('compilation_id', sa.String(length=32), nullable=True),
    sa.Column('state', sa.String(length=12), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('predicted_us', sa.Float(), nullable=True),
    sa.Column('measured_us', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['commit_id'], ['project_commits.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['compilation_id'], ['compilations.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('project_builds', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_project_builds_commit_id'), ['commit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_project_builds_compilation_id'), ['compilation_id'], unique=False)

    op.create_table('webhook_deliveries',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('project_id', sa.String(length=32), nullable=False),
    sa.Column('delivery_id', sa.String(length=200), nullable=False),
    sa.Column('status_code', sa.Integer(), nullable=False),
    sa.Column('response', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'delivery_id', name='uq_webhook_delivery')
    )
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_deliveries_project_id'), ['project_id'], unique=False)

    op.create_table('worker_presence',
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('queues', sa.JSON(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('last_seen', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    with op.batch_alter_table('worker_presence', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_worker_presence_last_seen'), ['last_seen'], unique=False)


def downgrade() -> None:
    op.drop_table('worker_presence')
    op.drop_table('webhook_deliveries')
    op.drop_table('project_builds')
    op.drop_table('project_commits')
    op.drop_table('projects')
