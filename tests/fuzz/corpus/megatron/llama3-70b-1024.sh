#!/bin/bash
# Llama-3-70B-style pretraining on 128 nodes x 8 GPUs (written for parbench's
# tests after Megatron-LM's examples/ scripts)

export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
NUM_NODES=128
CHECKPOINT_PATH=/ckpt/llama3-70b
TP=8
PP=4

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr $MASTER_ADDR
    --master_port 6000
)

MODEL_ARGS=(
    --num-layers 80
    --hidden-size 8192
    --ffn-hidden-size 28672
    --num-attention-heads 64
    --group-query-attention
    --num-query-groups 8
    --seq-length 8192
    --max-position-embeddings 8192
    --swiglu
    --untie-embeddings-and-output-weights
    --normalization RMSNorm
    --position-embedding-type rope
)

TRAINING_ARGS="--micro-batch-size 1 --global-batch-size 1024 --train-iters 500000 \
    --lr 1.5e-4 --bf16 --use-flash-attn"

PARALLEL_ARGS=(
    --tensor-model-parallel-size ${TP}
    --pipeline-model-parallel-size ${PP}
    --num-layers-per-virtual-pipeline-stage 5
    --sequence-parallel
    --use-distributed-optimizer
    --overlap-grad-reduce
    --tp-comm-overlap
    --recompute-activations
)

torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    $TRAINING_ARGS \
    ${PARALLEL_ARGS[@]} \
    --recompute-method uniform \
    --use-custom-fsdp \
    --save $CHECKPOINT_PATH \
    --data-path ${DATA_PATH:-/data/pile_text_document} # the corpus
