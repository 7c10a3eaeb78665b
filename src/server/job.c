/* job.c — the shared request object: reference counting, events and outcome under one mutex. */
#include "server/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double srv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

srv_job *srv_job_create(void)
{
    srv_job *job = calloc(1, sizeof(*job));
    if (!job) return NULL;
    pthread_mutex_init(&job->mu, NULL);
    pthread_cond_init(&job->cv, NULL);
    atomic_init(&job->cancelled, false);
    job->refs = 1;
    job->t_submit = srv_now();
    return job;
}

void srv_job_retain(srv_job *job)
{
    pthread_mutex_lock(&job->mu);
    job->refs++;
    pthread_mutex_unlock(&job->mu);
}

void srv_job_drop_encoded(srv_job *job)
{
    ts_mm_inputs_free(&job->mm);
}

void srv_job_drop_inputs(srv_job *job)
{
    for (int i = 0; i < job->n_pixels; i++) ts_pixel_values_free(&job->pixels[i]);
    free(job->pixels);
    job->pixels = NULL, job->n_pixels = 0;
    srv_job_drop_encoded(job);
}

void srv_job_release(srv_job *job)
{
    if (!job) return;
    pthread_mutex_lock(&job->mu);
    int left = --job->refs;
    pthread_mutex_unlock(&job->mu);
    if (left) return;
    srv_request_free(&job->req);
    srv_job_drop_inputs(job);
    free(job->prompt_text);
    free(job->ids);
    free(job->media);
    for (size_t i = 0; i < job->n_events; i++) free(job->events[i].text);
    free(job->events);
    pthread_cond_destroy(&job->cv);
    pthread_mutex_destroy(&job->mu);
    free(job);
}

bool srv_job_push_event(srv_job *job, const srv_event *ev)
{
    char *copy = malloc(ev->len + 1);
    if (!copy) return false;
    memcpy(copy, ev->text, ev->len);
    copy[ev->len] = '\0';
    pthread_mutex_lock(&job->mu);
    if (job->n_events == job->cap_events) {
        size_t cap = job->cap_events ? job->cap_events * 2 : 32;
        srv_event *grown = realloc(job->events, cap * sizeof(*grown));
        if (!grown) {
            pthread_mutex_unlock(&job->mu);
            free(copy);
            return false;
        }
        job->events = grown, job->cap_events = cap;
    }
    job->events[job->n_events] = *ev;
    job->events[job->n_events++].text = copy;
    pthread_cond_broadcast(&job->cv);
    pthread_mutex_unlock(&job->mu);
    return true;
}

void srv_job_set_running(srv_job *job)
{
    pthread_mutex_lock(&job->mu);
    job->state = SRV_JOB_RUNNING;
    pthread_mutex_unlock(&job->mu);
}

void srv_job_finish(srv_job *job, ts_finish_reason reason, size_t prompt_tokens, size_t completion_tokens)
{
    pthread_mutex_lock(&job->mu);
    job->state = SRV_JOB_DONE;
    job->finish_reason = reason;
    job->prompt_tokens = prompt_tokens;
    job->completion_tokens = completion_tokens;
    pthread_cond_broadcast(&job->cv);
    pthread_mutex_unlock(&job->mu);
}

void srv_job_fail(srv_job *job, int status, const char *param, const char *fmt, ...)
{
    pthread_mutex_lock(&job->mu);
    if (job->state != SRV_JOB_DONE && job->state != SRV_JOB_FAILED) {
        job->state = SRV_JOB_FAILED;
        job->error.status = status;
        snprintf(job->error.param, sizeof(job->error.param), "%s", param);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(job->error.message, sizeof(job->error.message), fmt, ap);
        va_end(ap);
    }
    pthread_cond_broadcast(&job->cv);
    pthread_mutex_unlock(&job->mu);
}
