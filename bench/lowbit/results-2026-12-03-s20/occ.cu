// how many clusters of each size the GPU holds at once, one 384-thread CTA per SM
#include <cstdio>
#include <cuda_runtime.h>
__global__ void __launch_bounds__(384, 1) k(float *p) { extern __shared__ float s[]; if (p) p[threadIdx.x] = s[threadIdx.x]; }
int main()
{
    int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t smems[] = {100 << 10, 200 << 10};
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10);
    for (size_t sm : smems)
        for (int c : sizes) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(c * 64, 1, 1);
            cfg.blockDim = dim3(384, 1, 1);
            cfg.dynamicSmemBytes = sm;
            cudaLaunchAttribute at;
            at.id = cudaLaunchAttributeClusterDimension;
            at.val.clusterDim.x = c; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
            cfg.attrs = &at; cfg.numAttrs = 1;
            int n = -1;
            cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k, &cfg);
            printf("smem %zu KB cluster %d: %d clusters (%d CTAs) %s\n", sm >> 10, c, n, n * c, cudaGetErrorString(e));
        }
}
