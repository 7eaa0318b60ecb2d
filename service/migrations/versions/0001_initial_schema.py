"""Initial schema: the tables of service/models.py as of the embedded service (owners, tokens, models,
compilations, compilation_events, kernels, compilation_kernels).

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-21
"""
from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('kernels',
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.Column('arch', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=300), nullable=False),
    sa.Column('ops', sa.JSON(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('source_sha256', sa.String(length=64), nullable=False),
    sa.Column('cubin_sha256', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('digest', 'arch')
    )
    op.create_table('owners',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('is_admin', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('models',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('owner_id', sa.String(length=32), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=300), nullable=False),
    sa.Column('inputs', sa.JSON(), nullable=False),
    sa.Column('outputs', sa.JSON(), nullable=False),
    sa.Column('op_histogram', sa.JSON(), nullable=False),
    sa.Column('warnings', sa.JSON(), nullable=False),
    sa.Column('opset', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['owners.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('owner_id', 'sha256', name='uq_model_owner_sha256')
    )
    with op.batch_alter_table('models', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_models_owner_id'), ['owner_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_models_sha256'), ['sha256'], unique=False)

    op.create_table('tokens',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('owner_id', sa.String(length=32), nullable=False),
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('revoked', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['owners.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_sha256')
    )
    with op.batch_alter_table('tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tokens_owner_id'), ['owner_id'], unique=False)

    op.create_table('compilations',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('owner_id', sa.String(length=32), nullable=False),
    sa.Column('model_id', sa.String(length=32), nullable=True),
    sa.Column('model_sha256', sa.String(length=64), nullable=False),
    sa.Column('target_name', sa.String(length=100), nullable=False),
    sa.Column('target_spec', sa.JSON(), nullable=False),
    sa.Column('arch', sa.String(length=20), nullable=False),
    sa.Column('queue', sa.String(length=20), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('dedup_key', sa.String(length=64), nullable=False),
    sa.Column('compiler_version', sa.String(length=40), nullable=False),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('stage', sa.String(length=40), nullable=True),
    sa.Column('progress', sa.Float(), nullable=False),
    sa.Column('stage_seconds', sa.JSON(), nullable=False),
    sa.Column('error_category', sa.String(length=40), nullable=True),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('enqueues', sa.Integer(), nullable=False),
    sa.Column('task_id', sa.String(length=64), nullable=True),
    sa.Column('artifact_sha256', sa.String(length=64), nullable=True),
    sa.Column('artifact_size', sa.BigInteger(), nullable=True),
    sa.Column('report_sha256', sa.String(length=64), nullable=True),
    sa.Column('report_html_sha256', sa.String(length=64), nullable=True),
    sa.Column('compile_seconds', sa.Float(), nullable=True),
    sa.Column('kernel_hits', sa.Integer(), nullable=False),
    sa.Column('kernel_misses', sa.Integer(), nullable=False),
    sa.Column('deduplicated_from', sa.String(length=32), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('queued_at', sa.DateTime(), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['model_id'], ['models.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['owner_id'], ['owners.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('compilations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_compilations_dedup_key'), ['dedup_key'], unique=False)
        batch_op.create_index(batch_op.f('ix_compilations_model_id'), ['model_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_compilations_owner_id'), ['owner_id'], unique=False)
        batch_op.create_index('ix_compilations_owner_state', ['owner_id', 'state'], unique=False)
        batch_op.create_index(batch_op.f('ix_compilations_state'), ['state'], unique=False)

    op.create_table('compilation_events',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('compilation_id', sa.String(length=32), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('stage', sa.String(length=40), nullable=True),
    sa.Column('progress', sa.Float(), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('message', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['compilation_id'], ['compilations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('compilation_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_compilation_events_compilation_id'), ['compilation_id'], unique=False)

    op.create_table('compilation_kernels',
    sa.Column('compilation_id', sa.String(length=32), nullable=False),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['compilation_id'], ['compilations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('compilation_id', 'digest')
    )
    with op.batch_alter_table('compilation_kernels', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_compilation_kernels_digest'), ['digest'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('compilation_kernels', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_compilation_kernels_digest'))

    op.drop_table('compilation_kernels')
    with op.batch_alter_table('compilation_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_compilation_events_compilation_id'))

    op.drop_table('compilation_events')
    with op.batch_alter_table('compilations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_compilations_state'))
        batch_op.drop_index('ix_compilations_owner_state')
        batch_op.drop_index(batch_op.f('ix_compilations_owner_id'))
        batch_op.drop_index(batch_op.f('ix_compilations_model_id'))
        batch_op.drop_index(batch_op.f('ix_compilations_dedup_key'))

    op.drop_table('compilations')
    with op.batch_alter_table('tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tokens_owner_id'))

    op.drop_table('tokens')
    with op.batch_alter_table('models', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_models_sha256'))
        batch_op.drop_index(batch_op.f('ix_models_owner_id'))

    op.drop_table('models')
    op.drop_table('owners')
    op.drop_table('kernels')
