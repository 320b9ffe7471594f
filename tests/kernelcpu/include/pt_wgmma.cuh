// pt_wgmma.cuh for kernelcpu (README.md): empty. The kernels run here have no wgmma.
